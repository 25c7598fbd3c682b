"""Which mode a call leaves a module in, and whether a call needs gradients.

``model.eval()`` and ``model.train(False)`` put a module in evaluation mode, ``model.train()``
and ``model.train(True)`` in training mode, ``model.train(flag)`` in a mode chosen at run
time; a helper of this file leaves a module in the modes its summary records on every exit.
Rules about evaluation code (TCK113, TCK114; TCK105 and the summaries match ``train(False)``
themselves) ask these instead of matching ``eval``/``train`` and the gradient calls each.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from torchcheck.lint import torch_api
from torchcheck.lint.nodes import literal_bool, method_call
from torchcheck.lint.summaries import ANONYMOUS, EVAL, TRAIN, FunctionSummary

if TYPE_CHECKING:
    from torchcheck.lint.context import LintContext

CHOSEN = "chosen"  # `model.train(flag)`: the author chooses the mode at run time

# Calls that need gradients: a backward pass, `torch.autograd.grad`, `torch.enable_grad()` ...
GRADIENT_METHODS = frozenset({"backward", "manual_backward", "grad", "requires_grad_", "enable_grad", "vjp", "jacobian"})
GRADIENT_FUNCTIONS = frozenset({"torch.autograd.backward", "torch.autograd.grad"}) | torch_api.ENABLE_GRAD_CONTEXTS


def mode_set_by(call: cst.Call) -> str | None:
    """EVAL for ``m.eval()`` and ``m.train(False)``, TRAIN for ``m.train()`` and
    ``m.train(True)``, CHOSEN for ``m.train(flag)``; None for any other call."""
    method = (method_call(call) or (None, None))[1]
    if method != TRAIN:
        return EVAL if method == EVAL else None
    return {True: TRAIN, False: EVAL}.get(literal_bool(call.args[0].value) if call.args else True, CHOSEN)


def modes_left_by(summary: FunctionSummary) -> list[tuple[str, str]]:
    """``(module, EVAL or TRAIN)`` for each module a helper leaves in a known mode, as the
    helper's caller names it; EVAL where some exit leaves it in evaluation mode."""
    return [(mode.target, EVAL if EVAL in mode.modes else TRAIN) for mode in summary.exit_modes if mode.target != ANONYMOUS]


def uses_gradients(context: LintContext, call: cst.Call) -> bool:
    """``loss.backward()``, ``torch.autograd.grad(...)``, ``x.requires_grad_()``,
    ``torch.enable_grad()``: a call that needs gradient mode on."""
    return (method_call(call) or (None, None))[1] in GRADIENT_METHODS or context.call_name(call) in GRADIENT_FUNCTIONS


def covers(switched: str, called: str) -> bool:
    """Whether switching ``switched`` switches ``called``: ``model`` covers ``model`` and
    ``model.encoder``."""
    return called == switched or called.startswith(switched + ".")
