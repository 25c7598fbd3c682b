"""Mixed-precision training steps: the GradScaler protocol, call by call, and the numerics.

The check runs the user's step with a scaler that records every call (``scale``,
``unscale_``, ``step``, ``update``), with hooks that record each backward (and whether it
went through the scaled loss), every ``optimizer.step()`` (and whether the scaler made
it) and gradient clipping. Mistakes in the protocol are named from that record, before
any numbers are compared, so clipping before ``unscale_`` is not mistaken for an
unscaled backward.
"""

from __future__ import annotations

import contextlib
import copy
import io
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from torchcheck.checks._compare import first_mismatch, indent
from torchcheck.checks._stochastic import random_ops_at_expected_value
from torchcheck.checks._train_mode import module_list, recording_train_mode_layers
from torchcheck.checks.errors import CheckFailed
from torchcheck.checks.state import (
    ModuleSnapshot,
    RngState,
    capture_rng_state,
    preserved_module,
    preserved_state,
    restore_rng_state,
)

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = ["assert_amp_step"]

StepFn = Callable[[nn.Module, torch.optim.Optimizer, "torch.amp.GradScaler", Any], Any]

#: Small enough that a clean float16 step does not overflow, large enough that a
#: gradient left scaled (or never scaled) is off by three orders of magnitude.
_INIT_SCALE = 1024.0
_BACKOFF = 0.5

#: A single batch is stepped this many times: mistakes that show only from the second
#: step on (a missing ``update()``) need more than one.
_SINGLE_BATCH_STEPS = 3

#: Gradients within this factor of the loss scale (or its inverse) of the float32
#: step's are scaled wrongly; rounding in low precision stays far inside it.
_SCALE_MARGIN = 8.0

# (rtol, atol) between the autocast loss and the float32 loss, measured on CPU bfloat16:
# a small MLP and a ResNet-like CNN differ by at most 1.3% once BatchNorm sees 4 or more
# values per channel. Normalising over fewer values amplifies rounding (up to 13% with
# 2 values per channel), so models whose BatchNorm layers run in train mode get the
# wider row.
_LOSS_TOLERANCE: dict[torch.dtype, tuple[float, float]] = {
    torch.float16: (1e-2, 1e-3),
    torch.bfloat16: (5e-2, 1e-2),
}
_LOSS_TOLERANCE_BATCH_STATISTICS: dict[torch.dtype, tuple[float, float]] = {
    torch.float16: (4e-2, 4e-3),
    torch.bfloat16: (2e-1, 4e-2),
}
_FALLBACK_TOLERANCE = (1e-2, 1e-3)

# ------------------------------------------------------------------ messages

_PREFIX = "assert_amp_step ({device}, {dtype}): "

_STEP_RAISED = _PREFIX + """step_fn raised during the {phase}:
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

_PROTOCOL = _PREFIX + """{what}
  calls in {where}: {recorded}
  expected:{pad} {expected}
{fix}{raised}"""

_EXPECTED_ORDER = (
    "scaler.scale(loss) -> backward -> scaler.unscale_(optimizer) -> clip_grad_norm_ -> "
    "scaler.step(optimizer) -> scaler.update()"
)

_RAISED_AFTERWARDS = "\n(step_fn then raised {error_type}: {error})"

_UNSCALED_BACKWARD = (
    "backward ran on the unscaled loss: the gradients never carried the loss scale, so "
    "scaler.step divides them by it ({scale:g}) and small float16 gradients underflow to zero.",
    "Call scaler.scale(loss).backward() instead of loss.backward().",
)
_OPTIMIZER_BYPASSES_SCALER = (
    "the optimizer was stepped directly (optimizer.step()), not through "
    "scaler.step(optimizer) (or through a GradScaler other than the one passed to step_fn).",
    "scaler.step(optimizer) skips steps whose gradients hold inf/NaN and unscales them "
    "first; optimizer.step() applies overflowed gradients. Step with scaler.step(optimizer).",
)
_CLIP_BEFORE_UNSCALE = (
    "{clip} clipped gradients before scaler.unscale_(optimizer): they were still multiplied "
    "by the loss scale ({scale:g}), so the clipping threshold was compared with scaled "
    "norms and cut the real gradients about {scale:g} times too hard.",
    "Call scaler.unscale_(optimizer) right before clipping, then scaler.step(optimizer).",
)
_UNSCALE_TWICE = (
    "scaler.unscale_(optimizer) ran again after {previous} without scaler.update() in "
    "between: gradients are unscaled once per update (torch refuses the second call).",
    "Call scaler.unscale_(optimizer) at most once per step, before clipping, and "
    "scaler.update() after every scaler.step(optimizer).",
)
_NO_UPDATE = (
    "scaler.update() is never called after scaler.step(optimizer): the loss scale never "
    "grows and never backs off after an overflow, and the next scaler.step() fails.",
    "Call scaler.update() after every scaler.step(optimizer).",
)
_UPDATE_SKIPPED = (
    "scaler.update() is skipped on {skipped} but called on {called}: a code path leaves "
    "out update(){overflow}.",
    "Call scaler.update() on every path after scaler.step(optimizer); to skip bad steps, "
    "let scaler.step(optimizer) do the skipping.",
)
_OVERFLOW_PATH = (
    " (a step whose gradients overflow skips it, so the scale never backs off and every "
    "later step overflows too)"
)

_LOSS_NOT_FINITE = _PREFIX + """the loss under autocast at step {step} is {loss} \
(float32 run: {ref_loss:.6g}). An op overflows or loses too much precision in {dtype}; \
keep it in float32 (e.g. compute it outside autocast or on .float() inputs)."""

_REFERENCE_NOT_FINITE = _PREFIX + """the float32 reference step {step} already gives a \
loss of {ref_loss}: the step overflows without autocast too, so there is nothing to \
compare the low-precision step with. Fix the float32 step first."""

_LOSS_NOT_CLOSE = _PREFIX + """the loss under autocast at step {step} is {loss:.6g}, \
the float32 run from the same parameters gives {ref_loss:.6g}: absolute difference \
{diff:.6g} (up to {allowed:.6g} allowed, rtol={rtol:g}, atol={atol:g}). A numerically \
fragile op runs in {dtype}.{batch_statistics}"""

_BATCH_STATISTICS_NOTE = """
BatchNorm layers run in train mode ({modules}): normalising over few samples amplifies \
rounding. If that explains it, pass a wider rtol/atol or check with them in eval mode."""

_GRADS_STILL_SCALED = _PREFIX + """when the optimizer stepped at step {step}, gradients \
were still multiplied by the loss scale ({scale:g}): their norm is {ratio:.6g} times the \
float32 step's. Step with scaler.step(optimizer), which unscales them first."""

_GRADS_NEVER_SCALED = _PREFIX + """when the optimizer stepped at step {step}, gradients \
were {ratio:.6g} times the float32 step's (about 1/scale, scale {scale:g}): the loss \
was not scaled before backward, but scaler.step divided the gradients by the scale. \
Use scaler.scale(loss).backward()."""

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

# -------------------------------------------------------------- call records


@dataclass(frozen=True)
class _Call:
    """One recorded call. ``kind`` is how messages show it."""

    kind: str
    scaled: bool = True  # for "backward": did it go through scaler.scale(loss)?


_SCALE = "scaler.scale(loss)"
_BACKWARD = "backward"
_UNSCALE = "scaler.unscale_(optimizer)"
_SCALER_STEP = "scaler.step(optimizer)"
_OPTIMIZER_STEP = "optimizer.step()"
_UPDATE = "scaler.update()"
_CLIP_KINDS = ("clip_grad_norm_", "clip_grad_value_")


@dataclass
class _Recorder:
    """The calls of every step of one phase, and what the numbers looked like."""

    steps: list[list[_Call]] = field(default_factory=list)
    losses: list[list[float]] = field(default_factory=list)
    grad_norms: list[float | None] = field(default_factory=list)
    inside_scaler_step: bool = False
    backward_is_scaled: bool = False

    def start_step(self) -> None:
        self.steps.append([])
        self.losses.append([])
        self.grad_norms.append(None)

    def record(self, kind: str) -> None:
        self.backward_is_scaled = False
        self.steps[-1].append(_Call(kind))

    def record_backward(self) -> None:
        calls = self.steps[-1]
        call = _Call(_BACKWARD, scaled=self.backward_is_scaled)
        if not calls or calls[-1] != call:
            calls.append(call)

    def record_optimizer_step(self, model: nn.Module) -> None:
        if not self.inside_scaler_step:
            self.record(_OPTIMIZER_STEP)
        self.grad_norms[-1] = _grad_norm(model)


class _RecordingScaler(torch.amp.GradScaler):
    """A GradScaler that tells a :class:`_Recorder` about every call."""

    def __init__(self, recorder: _Recorder, device: str, **kwargs: Any) -> None:
        super().__init__(device, **kwargs)
        self._recorder = recorder

    def scale(self, outputs: Any) -> Any:  # type: ignore[override]
        self._recorder.record(_SCALE)
        self._recorder.losses[-1].extend(float(t.detach().float().sum()) for t in _tensors_of(outputs))
        scaled = super().scale(outputs)
        for tensor in _tensors_of(scaled):
            if tensor.requires_grad:
                tensor.register_hook(self._mark_scaled_backward)
        return scaled

    def _mark_scaled_backward(self, grad: torch.Tensor) -> None:
        self._recorder.backward_is_scaled = True

    def unscale_(self, optimizer: torch.optim.Optimizer) -> None:
        if not self._recorder.inside_scaler_step:
            self._recorder.record(_UNSCALE)
        super().unscale_(optimizer)

    def step(self, optimizer: torch.optim.Optimizer, *args: Any, **kwargs: Any) -> Any:
        self._recorder.record(_SCALER_STEP)
        self._recorder.inside_scaler_step = True
        try:
            return super().step(optimizer, *args, **kwargs)
        finally:
            self._recorder.inside_scaler_step = False

    def update(self, new_scale: float | torch.Tensor | None = None) -> None:
        self._recorder.record(_UPDATE)
        super().update(new_scale)


def _tensors_of(outputs: Any) -> list[torch.Tensor]:
    """The tensors of what ``GradScaler.scale`` takes: a tensor or a list/tuple of them
    (other iterables are left alone: reading them would consume them)."""
    if isinstance(outputs, torch.Tensor):
        return [outputs]
    if isinstance(outputs, (list, tuple)):
        return [item for item in outputs if isinstance(item, torch.Tensor)]
    return []


def _grad_norm(model: nn.Module) -> float:
    grads = [p.grad.detach().double() for p in model.parameters() if p.grad is not None]
    return math.sqrt(sum(float(g.pow(2).sum()) for g in grads))


def _clip_targets() -> list[tuple[Any, str, str]]:
    """(module, attribute, label) of the clipping functions to record. ``clip_grad_norm_``
    is caught through the helper it calls, so ``from torch.nn.utils import
    clip_grad_norm_`` done before the check is recorded too."""
    from torch.nn import utils
    from torch.nn.utils import clip_grad

    candidates = [
        (clip_grad, "_clip_grads_with_norm_", "clip_grad_norm_"),
        (utils, "clip_grads_with_norm_", "clip_grad_norm_"),
        (clip_grad, "clip_grad_value_", "clip_grad_value_"),
        (utils, "clip_grad_value_", "clip_grad_value_"),
    ]
    if not hasattr(clip_grad, "_clip_grads_with_norm_"):  # torch < 2.6
        candidates += [(clip_grad, "clip_grad_norm_", "clip_grad_norm_"), (utils, "clip_grad_norm_", "clip_grad_norm_")]
    return [(module, name, label) for module, name, label in candidates if hasattr(module, name)]


@contextlib.contextmanager
def _recording_clips(recorder: _Recorder) -> Iterator[None]:
    originals = [(module, name, getattr(module, name), label) for module, name, label in _clip_targets()]

    def wrapped(function: Callable[..., Any], label: str) -> Callable[..., Any]:
        def clip(*args: Any, **kwargs: Any) -> Any:
            recorder.record(label)
            return function(*args, **kwargs)

        return clip

    try:
        for module, name, function, label in originals:
            setattr(module, name, wrapped(function, label))
        yield
    finally:
        for module, name, function, _ in originals:
            setattr(module, name, function)


@contextlib.contextmanager
def _recording(recorder: _Recorder, model: nn.Module, optimizer: torch.optim.Optimizer) -> Iterator[None]:
    """Backward, optimizer steps and clipping go to ``recorder``; all hooks and patches
    are removed on exit."""
    handles = [
        p.register_post_accumulate_grad_hook(lambda _: recorder.record_backward())
        for p in model.parameters()
        if p.requires_grad
    ]
    handles.append(optimizer.register_step_pre_hook(lambda *_: recorder.record_optimizer_step(model)))
    try:
        with _recording_clips(recorder):
            yield
    finally:
        for handle in handles:
            handle.remove()


# ----------------------------------------------------------------- the check


@dataclass(frozen=True)
class _Context:
    """Everything a phase needs to start from the same point."""

    step_fn: StepFn
    model: nn.Module
    optimizer: torch.optim.Optimizer
    batches: tuple[Any, ...]
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


@dataclass
class _Phase:
    """A recorded run of the AMP steps, and the error that stopped it, if any."""

    recorder: _Recorder
    scaler: _RecordingScaler
    scales: list[float] = field(default_factory=list)
    error: Exception | None = None
    batch_statistics: set[str] = field(default_factory=set)


def assert_amp_step(
    step_fn: StepFn,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    batches: Any,
    *,
    device: str | torch.device,
    dtype: torch.dtype | None = None,
    rtol: float | None = None,
    atol: float | None = None,
) -> None:
    """Check the user's AMP training step ``step_fn(model, optimizer, scaler, batch)``.

    ``batches`` is one batch (stepped several times) or a list of batches (one step
    each). Every step runs twice from the same parameters, optimizer and RNG state: in
    float32 with a disabled scaler (the reference) and under
    ``torch.autocast(device, dtype)`` with a ``GradScaler`` that grows every step, both
    with random operations at their expected value (dropout as the identity), since
    low-precision kernels draw other masks than float32 ones (flash attention runs only
    in float16 and bfloat16, with random numbers of its own). The
    scaler records its calls, and backward, ``optimizer.step()`` and gradient clipping
    are recorded too, so a failure names the mistake: backward of the unscaled loss,
    the optimizer stepped around the scaler, clipping before ``unscale_``, ``unscale_``
    twice, ``update()`` never called or skipped on a path. Then the loss must be finite
    and within ``rtol``/``atol`` of the float32 loss (defaults per dtype, wider when
    BatchNorm runs in train mode), and gradients unscaled when the optimizer steps. A
    step with inf injected into every gradient must leave parameters and optimizer
    state untouched and back the scale off, and the scaler's ``state_dict`` must
    round-trip. ``dtype`` defaults to float16 on CUDA and bfloat16 elsewhere.

    ``step_fn`` may return the loss or ``None`` (then the loss passed to
    ``scaler.scale`` is compared). It should open autocast with
    ``enabled=scaler.is_enabled()`` (or not at all: the check wraps the AMP runs in
    autocast itself). Model, optimizer, RNG and global state are restored afterwards.
    """
    device = torch.device(device)
    dtype = dtype or (torch.float16 if device.type == "cuda" else torch.bfloat16)
    steps = _as_steps(batches)
    with preserved_state(), preserved_module(model) as snapshot, _preserved_optimizer(optimizer) as opt_state:
        ctx = _Context(step_fn, model, optimizer, steps, device, dtype, snapshot, opt_state, capture_rng_state())
        with random_ops_at_expected_value():
            references, clean = _run_clean_steps(ctx)
        _check_protocol(ctx, clean, "step {step} of {total}", len(steps))
        _check_numerics(ctx, clean, references, rtol, atol)
        ctx.reset()
        overflow = _run_overflow_step(ctx)
        _check_protocol(ctx, overflow, "the overflow step", 1, clean_updates=_has_update(clean))
        _check_overflow_step(ctx, overflow)
        _check_state_dict_roundtrip(ctx, clean.scaler)


def _as_steps(batches: Any) -> tuple[Any, ...]:
    """A list means one batch per step; anything else (a tensor, a tuple such as
    ``(inputs, targets)``, a dict) is one batch, stepped several times."""
    if isinstance(batches, list):
        if not batches:
            raise ValueError("assert_amp_step: batches is an empty list; pass one batch or a list of batches")
        return tuple(batches)
    return (batches,) * _SINGLE_BATCH_STEPS


@contextlib.contextmanager
def _preserved_optimizer(optimizer: torch.optim.Optimizer) -> Iterator[dict[str, Any]]:
    saved = copy.deepcopy(optimizer.state_dict())
    try:
        yield saved
    finally:
        optimizer.load_state_dict(copy.deepcopy(saved))


def _new_phase(ctx: _Context, *, enabled: bool) -> _Phase:
    recorder = _Recorder()
    scaler = _RecordingScaler(
        recorder, ctx.device.type, init_scale=_INIT_SCALE, growth_interval=1, backoff_factor=_BACKOFF, enabled=enabled
    )
    return _Phase(recorder, scaler)


def _run_clean_steps(ctx: _Context) -> tuple[_Phase, _Phase]:
    """Each step first in float32, then (from the same state) under autocast; training
    continues from the autocast step. Stops at the first AMP step that raises."""
    reference = _new_phase(ctx, enabled=False)
    clean = _new_phase(ctx, enabled=True)
    for index, batch in enumerate(ctx.batches):
        start = (ModuleSnapshot.capture(ctx.model), copy.deepcopy(ctx.optimizer.state_dict()), capture_rng_state())
        _run_step(ctx, reference, batch, amp=False)
        if reference.error is not None:
            raise _step_raised(ctx, f"float32 reference step {index + 1}", reference.error)
        start[0].restore(ctx.model)
        ctx.optimizer.load_state_dict(start[1])
        restore_rng_state(start[2])
        _run_step(ctx, clean, batch, amp=True)
        if clean.error is not None:
            break
    return reference, clean


def _run_overflow_step(ctx: _Context) -> _Phase:
    overflow = _new_phase(ctx, enabled=True)
    _run_step(ctx, overflow, ctx.batches[0], amp=True, inject_inf=True)
    return overflow


def _run_step(ctx: _Context, phase: _Phase, batch: Any, *, amp: bool, inject_inf: bool = False) -> None:
    """One call of ``step_fn``; an exception is kept in ``phase.error`` (the record up to
    it usually names the mistake better than torch's message)."""
    phase.recorder.start_step()
    phase.scales.append(_scale(phase.scaler))
    autocast = torch.autocast(ctx.device.type, dtype=ctx.dtype, enabled=amp)
    injection = _inf_gradients(ctx.model) if inject_inf else contextlib.nullcontext()
    try:
        with torch.enable_grad(), _recording(phase.recorder, ctx.model, ctx.optimizer), autocast, injection, \
                recording_train_mode_layers(ctx.model) as layers:
            loss = ctx.step_fn(ctx.model, ctx.optimizer, phase.scaler, batch)
    except Exception as error:  # the user's step failing is the finding
        phase.error = error
        return
    phase.batch_statistics |= layers.batch_statistics
    returned = _loss_value(loss)
    if returned is not None:
        phase.recorder.losses[-1] = [returned]


def _loss_value(loss: Any) -> float | None:
    if isinstance(loss, torch.Tensor):
        return float(loss.detach().float().sum())
    if isinstance(loss, (int, float)) and not isinstance(loss, bool):
        return float(loss)
    return None


def _scale(scaler: torch.amp.GradScaler) -> float:
    return float(scaler.get_scale()) if scaler.is_enabled() else 1.0


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


def _step_raised(ctx: _Context, phase: str, error: Exception) -> CheckFailed:
    hint = "".join(f"\n{text}" for key, text in _STEP_ERROR_HINTS.items() if key in str(error))
    failure = CheckFailed(ctx.fmt(_STEP_RAISED, phase=phase, error_type=type(error).__name__, error=error, hint=hint))
    failure.__cause__ = error
    return failure


# ------------------------------------------------------------- the protocol


def _has_update(phase: _Phase) -> bool:
    return any(call.kind == _UPDATE for calls in phase.recorder.steps for call in calls)


def _check_protocol(ctx: _Context, phase: _Phase, where: str, total: int, *, clean_updates: bool | None = None) -> None:
    """Walk the recorded calls in order; the first mistake fails the check. An error
    that stopped the phase without a protocol mistake fails it as it is.
    ``clean_updates`` is given for the overflow step: whether the clean steps called
    ``scaler.update()``."""
    finding = _first_protocol_mistake(phase, clean_updates)
    if finding is not None:
        index, what, fix = finding
        label = where.format(step=index + 1, total=total)
        raised = ""
        if phase.error is not None:
            raised = _RAISED_AFTERWARDS.format(error_type=type(phase.error).__name__, error=phase.error)
        message = ctx.fmt(
            _PROTOCOL,
            what=what,
            where=label,
            recorded=" -> ".join(call.kind for call in phase.recorder.steps[index]) or "(none)",
            pad=" " * (len(label) + 1),
            expected=_EXPECTED_ORDER,
            fix=fix,
            raised=raised,
        )
        raise CheckFailed(message) from phase.error
    if phase.error is not None:
        raise _step_raised(ctx, where.format(step=len(phase.recorder.steps), total=total), phase.error)


def _first_protocol_mistake(phase: _Phase, clean_updates: bool | None) -> tuple[int, str, str] | None:
    """``(step index, what happened, how to fix it)`` of the first mistake, in call order.
    A step that raised is not judged for its own missing ``update()``."""
    any_update = bool(clean_updates) or _has_update(phase)
    last = len(phase.recorder.steps) - 1
    unscaled_by: str | None = None  # the call that unscaled the gradients since the last update
    for index, calls in enumerate(phase.recorder.steps):
        scale = phase.scales[index]
        for call in calls:
            if call.kind == _BACKWARD and not call.scaled:
                return index, *_texts(_UNSCALED_BACKWARD, scale=scale)
            if call.kind == _OPTIMIZER_STEP:
                return index, *_texts(_OPTIMIZER_BYPASSES_SCALER)
            if call.kind in _CLIP_KINDS and unscaled_by is None:
                return index, *_texts(_CLIP_BEFORE_UNSCALE, clip=call.kind, scale=scale)
            if call.kind == _UNSCALE and unscaled_by is not None:
                return index, *_texts(_UNSCALE_TWICE, previous=unscaled_by)
            if call.kind in (_UNSCALE, _SCALER_STEP):
                unscaled_by = call.kind
            elif call.kind == _UPDATE:
                unscaled_by = None
        raised_here = phase.error is not None and index == last
        if _runs_scaler(calls) and _UPDATE not in _kinds(calls) and not raised_here:
            if not any_update:
                return index, *_texts(_NO_UPDATE)
            return index, *_update_skipped(phase, overflow=clean_updates is not None)
    return None


def _runs_scaler(calls: Sequence[_Call]) -> bool:
    return any(call.kind in (_SCALE, _SCALER_STEP, _UNSCALE) for call in calls)


def _update_skipped(phase: _Phase, *, overflow: bool) -> tuple[str, str]:
    steps = phase.recorder.steps
    if overflow:
        skipped, called, overflow = "the step whose gradients overflow", "clean steps", _OVERFLOW_PATH
    else:
        judged = steps[:-1] if phase.error is not None else steps  # the step that raised never got to update
        missing = [i for i, calls in enumerate(judged) if _runs_scaler(calls) and _UPDATE not in _kinds(calls)]
        present = [i for i, calls in enumerate(judged) if _UPDATE in _kinds(calls)]
        skipped, called, overflow = _step_list(missing), _step_list(present), ""
    return _texts(_UPDATE_SKIPPED, skipped=skipped, called=called, overflow=overflow)


def _step_list(indices: list[int]) -> str:
    """``step 2`` or ``steps 1, 3`` for 0-based indices."""
    numbers = ", ".join(str(index + 1) for index in indices)
    return f"step {numbers}" if len(indices) == 1 else f"steps {numbers}"


def _kinds(calls: Sequence[_Call]) -> list[str]:
    return [call.kind for call in calls]


def _texts(template: tuple[str, str], **fields: Any) -> tuple[str, str]:
    return template[0].format(**fields), template[1].format(**fields)


# ------------------------------------------------------------- the numerics


def _loss_tolerance(ctx: _Context, clean: _Phase, rtol: float | None, atol: float | None) -> tuple[float, float]:
    table = _LOSS_TOLERANCE_BATCH_STATISTICS if clean.batch_statistics else _LOSS_TOLERANCE
    default_rtol, default_atol = table.get(ctx.dtype, _FALLBACK_TOLERANCE)
    return (default_rtol if rtol is None else rtol), (default_atol if atol is None else atol)


def _check_numerics(ctx: _Context, clean: _Phase, reference: _Phase, rtol: float | None, atol: float | None) -> None:
    rtol, atol = _loss_tolerance(ctx, clean, rtol, atol)
    for index in range(len(clean.recorder.steps)):
        _check_loss(ctx, clean, index, reference.recorder.losses[index], clean.recorder.losses[index], rtol, atol)
        _check_gradient_scale(ctx, index, clean, reference)


def _check_loss(
    ctx: _Context, clean: _Phase, index: int, reference: list[float], losses: list[float], rtol: float, atol: float
) -> None:
    if not losses or len(losses) != len(reference):
        return  # step_fn returned no loss and never called scaler.scale
    loss, ref_loss = sum(losses), sum(reference)
    if not math.isfinite(ref_loss):
        raise CheckFailed(ctx.fmt(_REFERENCE_NOT_FINITE, step=index + 1, ref_loss=ref_loss))
    if not math.isfinite(loss):
        raise CheckFailed(ctx.fmt(_LOSS_NOT_FINITE, step=index + 1, loss=loss, ref_loss=ref_loss))
    diff = abs(loss - ref_loss)
    allowed = atol + rtol * abs(ref_loss)
    if diff > allowed:
        note = ""
        if clean.batch_statistics:
            note = _BATCH_STATISTICS_NOTE.format(modules=module_list(clean.batch_statistics))
        raise CheckFailed(
            ctx.fmt(
                _LOSS_NOT_CLOSE, step=index + 1, loss=loss, ref_loss=ref_loss, diff=diff, allowed=allowed,
                rtol=rtol, atol=atol, batch_statistics=note,
            )
        )


def _check_gradient_scale(ctx: _Context, index: int, clean: _Phase, reference: _Phase) -> None:
    """A safety net behind the call record: gradients off by about the loss scale."""
    norm, ref_norm = clean.recorder.grad_norms[index], reference.recorder.grad_norms[index]
    if norm is None or not ref_norm or not math.isfinite(norm):
        return
    ratio, scale = norm / ref_norm, clean.scales[index]
    if ratio > scale / _SCALE_MARGIN:
        raise CheckFailed(ctx.fmt(_GRADS_STILL_SCALED, step=index + 1, scale=scale, ratio=ratio))
    if ratio < _SCALE_MARGIN / scale:
        raise CheckFailed(ctx.fmt(_GRADS_NEVER_SCALED, step=index + 1, scale=scale, ratio=ratio))


def _check_overflow_step(ctx: _Context, overflow: _Phase) -> None:
    changed_params = _changed_parameters(ctx)
    if changed_params:
        raise CheckFailed(ctx.fmt(_STEPPED_ON_OVERFLOW, what="the parameters", details=changed_params))
    found = first_mismatch(
        ctx.optimizer.state_dict()["state"], ctx.optimizer_state["state"], path="optimizer.state", rtol=0, atol=0
    )
    if found is not None:
        details = indent(f"{found.path}:\n{indent(found.render())}")
        raise CheckFailed(ctx.fmt(_STEPPED_ON_OVERFLOW, what="the optimizer state", details=details))
    before, after = overflow.scales[0], _scale(overflow.scaler)
    expected = before * _BACKOFF
    if after != expected:
        raise CheckFailed(ctx.fmt(_NO_BACKOFF, before=before, after=after, expected=expected, backoff=_BACKOFF))


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
