"""What a call hands to a helper of another file of the project.

A training step often lives in another file (``train_one_epoch(model, optimizer, loader)``
after ``from engine import train_one_epoch``). Whether that helper steps, clears or switches
what it is handed is a question for the project index (conditions ``effect:...`` and
``does:...``); a rule first asks which value of the kinds it follows the call hands over,
by name. TCK102, TCK103 and TCK104 ask it of optimizers, modules and GradScalers; TCK105's
``_imported_helper`` could ask it of modules.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

import libcst as cst

from torchcheck.lint.exports import imported_callee
from torchcheck.lint.kinds import Kind
from torchcheck.lint.nodes import dotted_name
from torchcheck.lint.project import Symbol

if TYPE_CHECKING:
    from torchcheck.lint.context import LintContext


def handed_to_imported_helper(context: LintContext, call: cst.Call, kinds: Collection[Kind]) -> tuple[Symbol, str, Kind] | None:
    """The helper ``call`` runs, imported from another file, with the name and kind of the
    first argument it is handed by name whose kind is one of ``kinds``; None when no such
    argument is passed or the callee is no imported helper."""
    for argument in call.args:
        name = dotted_name(argument.value)
        kind = context.kind_of(argument.value) if name is not None else None
        if kind in kinds:
            helper = imported_callee(context, call)
            return (helper, name, kind) if helper is not None else None  # type: ignore[return-value]
    return None
