"""What the mixed-precision rules share: recognising GradScaler calls and tensor ``backward()``.

Branches (the "``if scaler: scaler.step(opt) else: opt.step()``" pattern is correct code)
and per-loop facts come from the shared control flow, ``self.context.flow``.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.flow import Event
from torchcheck.lint.kinds import TENSOR_KINDS, Kind
from torchcheck.lint.nodes import dotted_name, method_call, source_text
from torchcheck.lint.summaries import ANONYMOUS, Certainty, Site, spelled


def is_scaler_call(context: LintContext, call: cst.Call, methods: frozenset[str] | tuple[str, ...]) -> bool:
    """``scaler.<method>(...)`` on a value known (or conventionally named) to be a GradScaler."""
    receiver_method = method_call(call)
    return (
        receiver_method is not None
        and receiver_method[1] in methods
        and context.kind_of(receiver_method[0]) is Kind.SCALER
    )


def runs_backward(context: LintContext, call: cst.Call) -> bool:
    """A tensor's ``.backward()`` (see :func:`is_tensor_backward`), or a framework's that
    backpropagates its argument (``accelerator.backward(loss)``, ``self.manual_backward(loss)``)."""
    if is_tensor_backward(context, call):
        return True
    subject, receiver_method = context.backward_subject(call), method_call(call)
    return subject is not None and receiver_method is not None and subject is not receiver_method[0]


def is_tensor_backward(context: LintContext, call: cst.Call) -> bool:
    """``x.backward(...)`` where ``x`` is (or may be) a tensor.

    Receivers of a known other kind are excluded, and so are unknown receivers given a
    positional argument: ``accelerator.backward(loss)`` / ``fabric.backward(loss)`` are not
    ``Tensor.backward`` (whose first argument, ``gradient``, is rarely passed).
    """
    receiver_method = method_call(call)
    if receiver_method is None or receiver_method[1] != "backward":
        return False
    receiver = receiver_method[0]
    if isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name) and receiver.func.value == "super":
        return False
    kind = context.kind_of(receiver)
    if kind is not None:
        return kind in TENSOR_KINDS
    return not any(argument.keyword is None for argument in call.args)


@dataclass(frozen=True)
class ScalerCall:
    """A GradScaler protocol call made at one call site: directly (``scaler.unscale_(opt)``)
    or by a same-file helper the call runs (``clip_gradients(scaler, model)``)."""

    action: str  # "unscale_", "step" or "update"
    scaler: str  # the scaler as the caller spells it: `scaler`, `self.scaler`
    certain: bool  # a helper does it on every path that returns (a direct call always does)
    event: Event  # the call site in this file, with where it runs
    site: Site | None = None  # the call inside the helper, for messages; None when direct


def scaler_calls(context: LintContext, call: cst.Call, actions: frozenset[str]) -> list[ScalerCall]:
    """The ``actions`` that ``call`` performs on a GradScaler, directly or through a helper
    (call it while visiting ``call``: each call site is stamped with one flow event)."""
    if is_scaler_call(context, call, actions):
        receiver, action = method_call(call)  # type: ignore[misc]
        return [ScalerCall(action, dotted_name(receiver) or source_text(receiver), True, context.flow.event(call))]
    summary = context.call_summary(call)
    effects = [
        effect
        for effect in (summary.effects if summary is not None else ())
        if effect.action in actions
        and effect.target != ANONYMOUS
        and context.kind_of(spelled(effect.target)) is Kind.SCALER
    ]
    if not effects:
        return []
    event = context.flow.event(call)
    return [
        ScalerCall(effect.action, effect.target, effect.certainty is Certainty.MUST, event, effect.site)
        for effect in effects
    ]
