"""Which devices exist, and whether code gives the same answer on each of them."""

from __future__ import annotations

import contextlib
import copy
import math
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import nn

from torchcheck.checks._compare import (
    Comparison,
    callable_name,
    compare_structures,
    detach_to_cpu,
    indent,
    iter_tensors,
    warn_uncompared,
)
from torchcheck.checks._inputs import ModelInputs, instantiate, is_model_factory, unwrap_compiled
from torchcheck.checks.errors import CheckFailed
from torchcheck.checks.meta import MetaForwardWatch, data_dependent_operation
from torchcheck.checks.seeding import seed_everything
from torchcheck.checks.state import cuda_usable, preserved_state

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = ["assert_devices_agree", "available_devices", "device_tolerance"]

_RAISES_ON_DEVICE = """\
assert_devices_agree: {what} fails on {device} but runs on cpu:
  {error_type}: {error}
A tensor is probably created on a hard-coded device, or the code takes a CPU-only path \
(.numpy(), .item() on a list, a Python-side index). Create tensors with device=x.device \
or register them as buffers."""

_FAILS_ON_META = """\
assert_devices_agree: {what} fails on meta but runs on cpu:
  {error_type}: {error}{cause}"""

_DATA_DEPENDENT_ON_META = """\
assert_devices_agree: {what} runs a data-dependent operation, {operation}, which \
cannot run on the meta device (meta tensors have no values); this is not a hard-coded \
device. Leave "meta" out of devices=, or pass only inputs whose values do not steer the \
forward (for a transformers model: no attention_mask).
  {error_type}: {error}"""

_DISAGREE = """\
assert_devices_agree: {what} on {device} differs from cpu at {path} \
(dtype {dtype}, rtol={rtol:g}, atol={atol:g}; {tf32}):
{details}"""

_STRUCTURE_MISMATCH = """\
assert_devices_agree: {what} on {device} gives a different structure, shape or dtype \
than on cpu at {path}:
{details}"""

# (rtol, atol) for comparing an accelerator's result with the CPU's.
_ACCELERATOR_TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float64: (1e-7, 1e-7),
    torch.float32: (1e-4, 1e-5),
    torch.float16: (1e-2, 1e-3),
    torch.bfloat16: (5e-2, 1e-2),
}
_TF32_TOLERANCE: tuple[float, float] = (5e-3, 1e-3)

#: Unit roundoff of the precision a device computes in (TF32: float32 storage, 10-bit
#: mantissa in cuBLAS/cuDNN).
_UNIT_ROUNDOFF: dict[str, float] = {
    "float64": 2.0**-53, "float32": 2.0**-24, "tf32": 2.0**-11, "float16": 2.0**-11, "bfloat16": 2.0**-8,
}
#: How far the device's error (against float64 on CPU) may exceed the CPU's own float32
#: error, once scaled by the ratio of their unit roundoffs: another order of the same
#: sums rounds about as much, not more.
_ROUNDING_SLACK = 4.0

_ROUNDING_NOTE = """
Not rounding alone: the model rounds {cpu_error:.3g} away from float64 on cpu (relative, \
whole output), so {precision} on {device} may differ by up to {allowed:.3g}, and it \
differs by {device_error:.3g}."""


def available_devices() -> list[torch.device]:
    """Usable devices in a stable order: ``cpu``, then ``cuda:0``, ``cuda:1`` ..., then
    ``mps``. Checking CUDA's device count does not initialise CUDA. A process that may
    not use CUDA (a forked CPU rank, see :func:`cuda_usable`) has no CUDA devices."""
    devices = [torch.device("cpu")]
    if cuda_usable():
        devices.extend(torch.device("cuda", i) for i in range(torch.cuda.device_count()))
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        devices.append(torch.device("mps"))
    return devices


def _tf32_enabled() -> bool:
    return bool(torch.backends.cuda.matmul.allow_tf32 or torch.backends.cudnn.allow_tf32)


def _tf32_report() -> str:
    matmul = "on" if torch.backends.cuda.matmul.allow_tf32 else "off"
    cudnn = "on" if torch.backends.cudnn.allow_tf32 else "off"
    return f"TF32 matmul={matmul}, cudnn={cudnn}"


def device_tolerance(device: torch.device, dtype: torch.dtype) -> tuple[float, float]:
    """``(rtol, atol)`` for a result computed on ``device`` against the CPU's.

    Float32 on CUDA gets a looser bound when TF32 is enabled (TF32 keeps 10 mantissa
    bits), because then cuBLAS/cuDNN legitimately round more than the CPU does.
    """
    if device.type == "cpu":
        return (0.0, 0.0) if not dtype.is_floating_point else _ACCELERATOR_TOLERANCES.get(dtype, (1e-5, 1e-6))
    if device.type == "cuda" and dtype == torch.float32 and _tf32_enabled():
        return _TF32_TOLERANCE
    return _ACCELERATOR_TOLERANCES.get(dtype, (0.0, 0.0))


def _to_device(tensor: torch.Tensor, device: torch.device) -> torch.Tensor:
    return tensor.detach().to(device).requires_grad_(tensor.requires_grad)


def _runner(fn: Any) -> tuple[str, Callable[[torch.device], Callable[..., Any]]]:
    """Describe ``fn`` and return ``device -> callable`` that runs it there.

    A model (an instance or a factory: a class or a callable with no required
    arguments) is built once on CPU under a fixed seed and copied to each device, so
    every device computes with the same weights, in eval mode.
    """
    if isinstance(fn, nn.Module) or is_model_factory(fn):
        seed_everything(0)
        base = instantiate(fn).eval()
        name = type(unwrap_compiled(base)).__name__
        return f"model {name}", lambda device: copy.deepcopy(base).to(device)
    return f"{callable_name(fn)}()", lambda device: fn


def assert_devices_agree(
    fn: Any,
    *inputs: Any,
    devices: Sequence[str | torch.device] | None = None,
    rtol: float | None = None,
    atol: float | None = None,
) -> None:
    """Check that ``fn(*inputs)`` gives the same result on every device as on CPU.

    ``fn`` is a function, a model instance, or a model factory (a class or a callable
    with no required arguments). A single dict (or ``BatchEncoding``) input is passed as
    keyword arguments. Inputs are moved to each device; outputs (any nested structure,
    HF caches included) are moved back and compared with the CPU's within
    per-(device, dtype) tolerances unless ``rtol``/``atol`` are given. ``devices``
    defaults to :func:`available_devices`. The ``meta`` device may be listed: there only
    structure, shapes and dtypes are compared, which finds hard-coded devices without an
    accelerator. Runs under ``torch.no_grad``; leaves RNG and global state as it found
    them.
    """
    targets = [torch.device(d) for d in (devices if devices is not None else available_devices())]
    with preserved_state(), torch.no_grad():
        what, runner = _runner(fn)
        cpu = torch.device("cpu")
        expected = detach_to_cpu(_call_on(runner(cpu), cpu, inputs))
        for device in targets:
            if device.type == "cpu":
                continue
            actual = _run_on(what, runner, device, inputs)
            exact = _LazyExact(runner, inputs) if rtol is None and atol is None else None
            _compare_device_result(what, device, actual, expected, rtol, atol, exact)


def _call_on(target: Callable[..., Any], device: torch.device, inputs: tuple[Any, ...]) -> Any:
    return ModelInputs.from_inputs(inputs, target).map(lambda t: _to_device(t, device)).call(target)


def _run_on(
    what: str, runner: Callable[[torch.device], Callable[..., Any]], device: torch.device, inputs: tuple[Any, ...]
) -> Any:
    watch = MetaForwardWatch() if device.type == "meta" else None
    try:
        with watch if watch is not None else contextlib.nullcontext():
            return detach_to_cpu(_call_on(runner(device), device, inputs))
    except Exception as error:  # any failure on the device is the finding
        raise _device_failure(what, device, error, watch) from error


def _device_failure(
    what: str, device: torch.device, error: Exception, watch: MetaForwardWatch | None = None
) -> CheckFailed:
    operation = data_dependent_operation(error) if device.type == "meta" else None
    fields = {"what": what, "error_type": type(error).__name__, "error": str(error).strip()}
    if operation is not None:
        return CheckFailed(_DATA_DEPENDENT_ON_META.format(operation=operation, **fields))
    cause = watch.explain(error) if watch is not None else None
    if cause is not None:  # a hard-coded device with where it was made, or a meta kernel's limitation
        return CheckFailed(_FAILS_ON_META.format(cause=cause, **fields))
    return CheckFailed(_RAISES_ON_DEVICE.format(device=device, **fields))


class _LazyExact:
    """The function's result on CPU in float64, computed once and only when asked: the
    yardstick of how much this model amplifies rounding (a recurrence over many steps,
    a deep stack, a softmax over large logits)."""

    def __init__(self, runner: Callable[[torch.device], Callable[..., Any]], inputs: tuple[Any, ...]) -> None:
        self.runner, self.inputs = runner, inputs
        self._result: dict[str, torch.Tensor] | None = None

    def tensors(self) -> dict[str, torch.Tensor] | None:
        if self._result is None:
            self._result = self._compute()
        return self._result or None

    def _compute(self) -> dict[str, torch.Tensor]:
        target = self.runner(torch.device("cpu"))
        if isinstance(target, nn.Module):
            target = target.double()
        as_float64 = lambda t: t.detach().double() if t.is_floating_point() else t.detach()  # noqa: E731
        try:
            result = ModelInputs.from_inputs(self.inputs, target).map(as_float64).call(target)
        except Exception:  # noqa: BLE001 - a model that cannot run in float64 keeps the table's tolerance
            return {}
        return dict(iter_tensors(detach_to_cpu(result)))


def _compare_device_result(
    what: str,
    device: torch.device,
    actual: Any,
    expected: Any,
    rtol: float | None,
    atol: float | None,
    exact: _LazyExact | None = None,
) -> None:
    comparison = compare_structures(
        actual,
        expected,
        rtol=rtol,
        atol=atol,
        tolerance=lambda dtype: device_tolerance(device, dtype),
        ignore_types=(torch.device,),
    )
    if comparison.mismatch is not None:
        note = _rounding_verdict(device, actual, expected, exact) if _is_numeric(comparison) else None
        if note == "":
            return  # every difference is the rounding this model amplifies
        raise _disagreement(what, device, comparison, rtol, atol, note or "")
    warn_uncompared("assert_devices_agree", comparison)


def _is_numeric(comparison: Comparison) -> bool:
    mismatch = comparison.mismatch
    return mismatch is not None and mismatch.dtype is not None and not math.isnan(mismatch.max_abs)


def _rounding_verdict(device: torch.device, actual: Any, expected: Any, exact: _LazyExact | None) -> str | None:
    """``""`` when every floating tensor that misses the table's tolerance is within the
    rounding the model shows on CPU, scaled to the device's precision; else the note
    that says by how much the first one is not; ``None`` when there is no yardstick."""
    reference = exact.tensors() if exact is not None else None
    if reference is None:
        return None
    wanted = dict(iter_tensors(expected))
    for path, got in iter_tensors(actual):
        want, truth = wanted.get(path), reference.get(path)
        if want is None or not want.is_floating_point() or truth is None or truth.shape != want.shape:
            continue
        rtol, atol = device_tolerance(device, want.dtype)
        if torch.allclose(got.to(want.dtype), want, rtol=rtol, atol=atol, equal_nan=True):
            continue
        note = _rounding_note(device, got, want, truth)
        if note:
            return note
    return ""


def _rounding_note(device: torch.device, got: torch.Tensor, want: torch.Tensor, truth: torch.Tensor) -> str:
    scale = float(truth.double().norm()) or 1.0
    cpu_error = float((want.double() - truth.double()).norm()) / scale
    device_error = float((got.double() - truth.double()).norm()) / scale
    precision = _device_precision(device, want.dtype)
    ratio = _UNIT_ROUNDOFF.get(precision, 0.0) / _UNIT_ROUNDOFF.get(str(want.dtype).removeprefix("torch."), 1.0)
    allowed = _ROUNDING_SLACK * max(ratio, 1.0) * cpu_error
    if device_error <= allowed:
        return ""
    return _ROUNDING_NOTE.format(
        cpu_error=cpu_error, precision=precision, device=device, allowed=allowed, device_error=device_error
    )


def _device_precision(device: torch.device, dtype: torch.dtype) -> str:
    if device.type == "cuda" and dtype == torch.float32 and _tf32_enabled():
        return "tf32"
    return str(dtype).removeprefix("torch.")


def _disagreement(
    what: str, device: torch.device, comparison: Comparison, rtol: float | None, atol: float | None, note: str = ""
) -> CheckFailed:
    mismatch = comparison.mismatch
    assert mismatch is not None
    details = indent(mismatch.render())
    if math.isnan(mismatch.max_abs) or mismatch.dtype is None:  # structure, shape or dtype
        return CheckFailed(_STRUCTURE_MISMATCH.format(what=what, device=device, path=mismatch.path, details=details))
    d_rtol, d_atol = device_tolerance(device, mismatch.dtype)
    return CheckFailed(
        _DISAGREE.format(
            what=what,
            device=device,
            path=mismatch.path,
            dtype=mismatch.dtype,
            rtol=d_rtol if rtol is None else rtol,
            atol=d_atol if atol is None else atol,
            tf32=_tf32_report(),
            details=details,
        )
        + note
    )
