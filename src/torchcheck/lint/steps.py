"""What a ``.step()`` call steps.

``optimizer.step()`` steps its receiver; ``scaler.step(optimizer)`` (a GradScaler) steps the
optimizer it is handed; ``optimizer.step(closure)`` (LBFGS-style) recomputes and clears the
gradients itself, through the closure. Rules about the order of ``backward()``,
``zero_grad()`` and ``step()`` (TCK103, TCK111; TCK102 and TCK104 could too) ask this instead
of matching the call's shape, and filter on the receiver's kind (a scheduler steps too).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import libcst as cst

from torchcheck.lint.kinds import Kind
from torchcheck.lint.nodes import dotted_name

if TYPE_CHECKING:
    from torchcheck.lint.context import LintContext


class Step(NamedTuple):
    optimizer: str | None  # what is stepped, as the code names it (None: not a dotted name)
    receiver_kind: Kind | None  # what the receiver is: an optimizer, a GradScaler, a scheduler ...
    through_scaler: bool  # `scaler.step(optimizer)`
    closure: bool  # `optimizer.step(closure)`: a positional argument, to anything but a GradScaler


def step_of(context: LintContext, call: cst.Call) -> Step | None:
    """For ``receiver.step(...)``: what it steps and how; None for any other call."""
    if type(call.func) is not cst.Attribute or call.func.attr.value != "step":
        return None
    kind = context.kind_of(call.func.value)
    positional = [argument for argument in call.args if argument.keyword is None]
    if kind is Kind.SCALER and positional:
        return Step(dotted_name(positional[0].value), kind, True, False)
    return Step(dotted_name(call.func.value), kind, False, bool(positional))


def steps_an_optimizer(context: LintContext, call: cst.Call) -> bool:
    """``optimizer.step()`` or ``scaler.step(optimizer)``; not a scheduler's ``step()``."""
    found = step_of(context, call)
    return found is not None and found.receiver_kind in (Kind.OPTIMIZER, Kind.SCALER)


def steps_in_its_body(context: LintContext, loop: cst.For | cst.While) -> bool:
    """The loop's own body, not a loop nested in it, steps an optimizer. Complete when the loop is left."""
    return any(
        name == "step" and context.binder.enclosing(call, cst.For, cst.While) is loop and steps_an_optimizer(context, call)
        for name, call in context.calls_in_loop(loop)
    )
