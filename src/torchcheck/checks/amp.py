"""Mixed-precision training step: autocast numerics and the GradScaler protocol."""

from __future__ import annotations

import contextlib
import copy
import io
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from torchcheck.checks._compare import first_mismatch, indent
from torchcheck.checks.errors import CheckFailed
from torchcheck.checks.state import (
    ModuleSnapshot,
    RngState,
    capture_rng_state,
    preserved_module,
    preserved_state,
    restore_rng_state,
)

__all__ = ["assert_amp_step"]

StepFn = Callable[[nn.Module, torch.optim.Optimizer, "torch.amp.GradScaler", Any], Any]

#: Small enough that a clean float16 step does not overflow, large enough that a
#: gradient left scaled (or never scaled) is off by three orders of magnitude.
_INIT_SCALE = 1024.0

# (rtol, atol) between the autocast loss and the float32 loss.
_LOSS_TOLERANCE: dict[torch.dtype, tuple[float, float]] = {
    torch.float16: (1e-2, 1e-3),
    torch.bfloat16: (5e-2, 1e-2),
}

_PREFIX = "assert_amp_step ({device}, {dtype}): "

_STEP_RAISED = _PREFIX + """step_fn raised during the {phase} step:
  {error_type}: {error}{hint}"""

# substring of torch's error -> what it means in the user's step
_STEP_ERROR_HINTS: dict[str, str] = {
    "No inf checks were recorded": "scaler.update() found no inf checks: the optimizer was "
    "stepped directly (optimizer.step()) instead of through scaler.step(optimizer).",
    "_scale is None": "scaler.step() ran but scaler.scale() never did: backward ran on the "
    "unscaled loss. Use scaler.scale(loss).backward().",
    "unscale_() has already been called": "scaler.unscale_() or scaler.step() ran twice "
    "without scaler.update() in between.",
}

_LOSS_NOT_FINITE = _PREFIX + """the loss under autocast is {loss} (float32 run: \
{ref_loss:.6g}). An op overflows or loses too much precision in {dtype}; keep it in \
float32 (e.g. compute it outside autocast or on .float() inputs)."""

_LOSS_NOT_CLOSE = _PREFIX + """the loss under autocast is {loss:.6g}, the float32 run \
gives {ref_loss:.6g}: absolute difference {diff:.6g} (up to {allowed:.6g} allowed, \
rtol={rtol:g}, atol={atol:g}). A numerically fragile op runs in {dtype}."""

_GRADS_STILL_SCALED = _PREFIX + """when the optimizer stepped, gradients were still \
multiplied by the loss scale ({scale:g}): their norm is {ratio:.6g} times the float32 \
step's. Step with scaler.step(optimizer) (or call scaler.unscale_(optimizer) before \
optimizer.step() for clipping)."""

_GRADS_NEVER_SCALED = _PREFIX + """gradients are {ratio:.6g} times the float32 step's \
(about 1/scale, scale {scale:g}): backward ran on the unscaled loss. Use \
scaler.scale(loss).backward()."""

_GRADS_OFF = _PREFIX + """gradient norm after the step is {ratio:.6g} times the float32 \
step's (expected about 1)."""

_SCALE_NOT_UPDATED = _PREFIX + """the loss scale is still {scale:g} after the {phase} \
step (growth_interval=1, so scaler.update() would have {would}). scaler.update() is not \
called after scaler.step(optimizer)."""

_STEPPED_ON_OVERFLOW = _PREFIX + """on a step whose gradients overflowed (inf injected \
into every gradient), {what} changed:
{details}
The optimizer must be stepped through scaler.step(optimizer), which skips steps with \
inf/NaN gradients; calling optimizer.step() yourself (also after scaler.unscale_) \
applies them."""

_NO_BACKOFF = _PREFIX + """on a step whose gradients overflowed the loss scale went \
from {before:g} to {after:g}; expected {expected:g} (backoff_factor {backoff:g})."""

_STATE_DICT_ROUNDTRIP = _PREFIX + """GradScaler.state_dict() does not round-trip through \
torch.save/torch.load(weights_only=True): {details}"""


@dataclass(frozen=True)
class _StepResult:
    loss: float
    grads: dict[str, torch.Tensor]
    scale_before: float
    scale_after: float


@dataclass(frozen=True)
class _Context:
    """Everything a phase needs to start from the same point."""

    step_fn: StepFn
    model: nn.Module
    optimizer: torch.optim.Optimizer
    batch: Any
    device: torch.device
    dtype: torch.dtype
    model_state: ModuleSnapshot
    optimizer_state: dict[str, Any]
    rng: RngState

    def reset(self) -> None:
        self.model_state.restore(self.model)
        self.optimizer.load_state_dict(copy.deepcopy(self.optimizer_state))
        restore_rng_state(self.rng)

    def fmt(self, template: str, **fields: Any) -> str:
        return template.format(device=self.device, dtype=self.dtype, **fields)


def assert_amp_step(
    step_fn: StepFn,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    batch: Any,
    *,
    device: str | torch.device,
    dtype: torch.dtype | None = None,
) -> None:
    """Check the user's AMP training step ``step_fn(model, optimizer, scaler, batch)``.

    The step runs four times from the same parameters, optimizer state and RNG state:
    (1) in float32 with a disabled scaler (the reference), (2) under
    ``torch.autocast(device, dtype)`` with a ``GradScaler`` that grows every step, (3) the
    same with inf injected into every gradient, and (4) the scaler's ``state_dict``
    through ``torch.save``/``torch.load(weights_only=True)``. It requires a finite loss
    close to the float32 loss, gradients unscaled when the optimizer steps, the scale
    updated, parameters and optimizer state untouched on overflow, and the scale backed
    off. ``dtype`` defaults to float16 on CUDA and bfloat16 elsewhere.

    ``step_fn`` should open autocast with ``enabled=scaler.is_enabled()`` (or not at all:
    the check wraps the AMP phases in autocast itself). Model, optimizer and RNG are
    restored afterwards.
    """
    device = torch.device(device)
    dtype = dtype or (torch.float16 if device.type == "cuda" else torch.bfloat16)
    with preserved_state(), preserved_module(model) as snapshot, _preserved_optimizer(optimizer) as opt_state:
        ctx = _Context(step_fn, model, optimizer, batch, device, dtype, snapshot, opt_state, capture_rng_state())
        reference = _run_phase(ctx, "float32 reference", amp=False)
        ctx.reset()
        clean_scaler = _new_scaler(device)
        clean = _run_phase(ctx, "clean AMP", amp=True, scaler=clean_scaler)
        _check_clean_step(ctx, clean, reference)
        ctx.reset()
        overflow = _run_phase(ctx, "overflow", amp=True, scaler=_new_scaler(device), inject_inf=True)
        _check_overflow_step(ctx, overflow)
        _check_state_dict_roundtrip(ctx, clean_scaler)


@contextlib.contextmanager
def _preserved_optimizer(optimizer: torch.optim.Optimizer) -> Iterator[dict[str, Any]]:
    saved = copy.deepcopy(optimizer.state_dict())
    try:
        yield saved
    finally:
        optimizer.load_state_dict(copy.deepcopy(saved))


def _new_scaler(device: torch.device) -> torch.amp.GradScaler:
    return torch.amp.GradScaler(device.type, init_scale=_INIT_SCALE, growth_interval=1)


@contextlib.contextmanager
def _inf_gradients(model: nn.Module) -> Iterator[None]:
    """Every parameter's gradient becomes +inf, as if the scaled loss overflowed."""
    handles = [
        p.register_hook(lambda grad: torch.full_like(grad, math.inf)) for p in model.parameters() if p.requires_grad
    ]
    try:
        yield
    finally:
        for handle in handles:
            handle.remove()


def _run_phase(
    ctx: _Context,
    phase: str,
    *,
    amp: bool,
    scaler: torch.amp.GradScaler | None = None,
    inject_inf: bool = False,
) -> _StepResult:
    scaler = scaler if scaler is not None else torch.amp.GradScaler(ctx.device.type, enabled=False)
    scale_before = _scale(scaler)
    autocast = torch.autocast(ctx.device.type, dtype=ctx.dtype, enabled=amp)
    injection = _inf_gradients(ctx.model) if inject_inf else contextlib.nullcontext()
    try:
        with torch.enable_grad(), autocast, injection:
            loss = ctx.step_fn(ctx.model, ctx.optimizer, scaler, ctx.batch)
    except Exception as error:  # the user's step failing is the finding
        hint = "".join(f"\n{text}" for key, text in _STEP_ERROR_HINTS.items() if key in str(error))
        raise CheckFailed(
            ctx.fmt(_STEP_RAISED, phase=phase, error_type=type(error).__name__, error=error, hint=hint)
        ) from error
    grads = {
        name: p.grad.detach().to(torch.float64).clone() for name, p in ctx.model.named_parameters() if p.grad is not None
    }
    value = float(loss.detach().float()) if isinstance(loss, torch.Tensor) else float(loss)
    return _StepResult(value, grads, scale_before, _scale(scaler))


def _scale(scaler: torch.amp.GradScaler) -> float:
    return float(scaler.get_scale()) if scaler.is_enabled() else 1.0


def _check_clean_step(ctx: _Context, clean: _StepResult, reference: _StepResult) -> None:
    if not math.isfinite(clean.loss):
        raise CheckFailed(ctx.fmt(_LOSS_NOT_FINITE, loss=clean.loss, ref_loss=reference.loss))
    rtol, atol = _LOSS_TOLERANCE.get(ctx.dtype, (1e-2, 1e-3))
    diff = abs(clean.loss - reference.loss)
    allowed = atol + rtol * abs(reference.loss)
    if diff > allowed:
        raise CheckFailed(
            ctx.fmt(
                _LOSS_NOT_CLOSE, loss=clean.loss, ref_loss=reference.loss, diff=diff, allowed=allowed, rtol=rtol, atol=atol
            )
        )
    ratio = _grad_norm_ratio(clean.grads, reference.grads)
    if ratio is not None and math.isfinite(ratio):
        if ratio > clean.scale_before / 4:
            raise CheckFailed(ctx.fmt(_GRADS_STILL_SCALED, scale=clean.scale_before, ratio=ratio))
        if ratio < 4 / clean.scale_before:
            raise CheckFailed(ctx.fmt(_GRADS_NEVER_SCALED, scale=clean.scale_before, ratio=ratio))
        if not 0.25 <= ratio <= 4:
            raise CheckFailed(ctx.fmt(_GRADS_OFF, ratio=ratio))
    if clean.scale_after == clean.scale_before:
        raise CheckFailed(ctx.fmt(_SCALE_NOT_UPDATED, scale=clean.scale_after, phase="clean", would="doubled it"))


def _grad_norm_ratio(grads: dict[str, torch.Tensor], reference: dict[str, torch.Tensor]) -> float | None:
    """||grads|| / ||reference|| over parameters present in both; ``None`` if there are
    none (the step zeroed its gradients after stepping) or the reference is zero."""
    common = [name for name in grads if name in reference]
    if not common:
        return None
    norm = math.sqrt(sum(float(grads[n].pow(2).sum()) for n in common))
    ref_norm = math.sqrt(sum(float(reference[n].pow(2).sum()) for n in common))
    return None if ref_norm == 0 else norm / ref_norm


def _check_overflow_step(ctx: _Context, overflow: _StepResult) -> None:
    changed_params = _changed_parameters(ctx)
    if changed_params:
        raise CheckFailed(ctx.fmt(_STEPPED_ON_OVERFLOW, what="the parameters", details=changed_params))
    found = first_mismatch(
        ctx.optimizer.state_dict()["state"], ctx.optimizer_state["state"], path="optimizer.state", rtol=0, atol=0
    )
    if found is not None:
        details = indent(f"{found.path}:\n{indent(found.render())}")
        raise CheckFailed(ctx.fmt(_STEPPED_ON_OVERFLOW, what="the optimizer state", details=details))
    expected = overflow.scale_before * 0.5
    if overflow.scale_after == overflow.scale_before:
        raise CheckFailed(
            ctx.fmt(_SCALE_NOT_UPDATED, scale=overflow.scale_after, phase="overflow", would="halved it")
        )
    if overflow.scale_after != expected:
        raise CheckFailed(
            ctx.fmt(_NO_BACKOFF, before=overflow.scale_before, after=overflow.scale_after, expected=expected, backoff=0.5)
        )


def _changed_parameters(ctx: _Context) -> str:
    """The first changed parameter in full, the others by name."""
    changed = []
    for name, param in ctx.model.named_parameters():
        before = ctx.model_state.tensors.get(name)
        found = None if before is None else first_mismatch(param.detach(), before, path=name, rtol=0, atol=0)
        if found is not None:
            changed.append(found)
    if not changed:
        return ""
    lines = [f"  {changed[0].path}:", indent(changed[0].render(), "    ")]
    if len(changed) > 1:
        lines.append(f"  also changed: {', '.join(m.path for m in changed[1:])}")
    return "\n".join(lines)


def _check_state_dict_roundtrip(ctx: _Context, scaler: torch.amp.GradScaler) -> None:
    buffer = io.BytesIO()
    torch.save(scaler.state_dict(), buffer)
    buffer.seek(0)
    try:
        loaded = torch.load(buffer, weights_only=True)
        restored = torch.amp.GradScaler(ctx.device.type)
        restored.load_state_dict(loaded)
    except Exception as error:  # any failure to round-trip is the finding
        raise CheckFailed(ctx.fmt(_STATE_DICT_ROUNDTRIP, details=f"{type(error).__name__}: {error}")) from error
    found = first_mismatch(restored.state_dict(), scaler.state_dict(), path="scaler.state_dict()", rtol=0, atol=0)
    if found is not None:
        raise CheckFailed(ctx.fmt(_STATE_DICT_ROUNDTRIP, details=f"{found.path}: {found.render()}"))
