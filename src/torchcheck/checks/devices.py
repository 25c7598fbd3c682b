"""Which devices exist, and whether code gives the same answer on each of them."""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch
from torch import nn

from torchcheck.checks._compare import callable_name, detach_to_cpu, first_mismatch, indent
from torchcheck.checks.errors import CheckFailed
from torchcheck.checks.seeding import seed_everything
from torchcheck.checks.state import preserved_state

__all__ = ["assert_devices_agree", "available_devices", "device_tolerance"]

_RAISES_ON_DEVICE = """\
assert_devices_agree: {what} fails on {device} but runs on cpu:
  {error_type}: {error}
A tensor is probably created on a hard-coded device, or the code takes a CPU-only path \
(.numpy(), .item() on a list, a Python-side index). Create tensors with device=x.device \
or register them as buffers."""

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


def available_devices() -> list[torch.device]:
    """Usable devices in a stable order: ``cpu``, then ``cuda:0``, ``cuda:1`` ..., then
    ``mps``. Checking CUDA's device count does not initialise CUDA."""
    devices = [torch.device("cpu")]
    if torch.cuda.is_available():
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


def _to_device(value: Any, device: torch.device) -> Any:
    if isinstance(value, torch.Tensor):
        return value.detach().to(device).requires_grad_(value.requires_grad)
    if isinstance(value, Mapping):
        return {key: _to_device(item, device) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_to_device(item, device) for item in value)
    return value


def _is_factory(fn: Any) -> bool:
    """A model class, or a callable that takes no required arguments (``make_model``)."""
    if isinstance(fn, type):
        return issubclass(fn, nn.Module)
    if isinstance(fn, nn.Module):
        return False
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    required = [
        p
        for p in signature.parameters.values()
        if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    has_varargs = any(p.kind is p.VAR_POSITIONAL for p in signature.parameters.values())
    return not required and not has_varargs


def _runner(fn: Any) -> tuple[str, Callable[[torch.device], Callable[..., Any]]]:
    """Describe ``fn`` and return ``device -> callable`` that runs it there.

    A model (or factory) is built once on CPU under a fixed seed and copied to each
    device, so every device computes with the same weights, in eval mode.
    """
    if isinstance(fn, nn.Module) or _is_factory(fn):
        if isinstance(fn, nn.Module):
            base = copy.deepcopy(fn)
        else:
            seed_everything(0)
            base = fn()
        base.eval()
        name = type(base).__name__
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
    with no required arguments). Inputs are moved to each device; outputs are moved back
    and compared with the CPU's within per-(device, dtype) tolerances unless
    ``rtol``/``atol`` are given. ``devices`` defaults to :func:`available_devices`.
    The ``meta`` device may be listed: there only structure, shapes and dtypes are
    compared, which finds hard-coded devices without an accelerator.
    Runs under ``torch.no_grad``; leaves RNG and global state as it found them.
    """
    targets = [torch.device(d) for d in (devices if devices is not None else available_devices())]
    with preserved_state(), torch.no_grad():
        what, runner = _runner(fn)
        cpu = torch.device("cpu")
        expected = detach_to_cpu(runner(cpu)(*_to_device(inputs, cpu)))
        for device in targets:
            if device.type == "cpu":
                continue
            actual = _run_on(what, runner, device, inputs)
            _compare_device_result(what, device, actual, expected, rtol, atol)


def _run_on(what: str, runner: Callable[[torch.device], Callable[..., Any]], device: torch.device, inputs: tuple[Any, ...]) -> Any:
    try:
        result = runner(device)(*_to_device(inputs, device))
    except Exception as error:  # any failure on the device is the finding
        raise CheckFailed(
            _RAISES_ON_DEVICE.format(what=what, device=device, error_type=type(error).__name__, error=error)
        ) from error
    if device.type == "meta":
        return _meta_placeholders(result)
    return detach_to_cpu(result)


def _meta_placeholders(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return torch.zeros(value.shape, dtype=value.dtype)
    if isinstance(value, Mapping):
        return {key: _meta_placeholders(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_meta_placeholders(item) for item in value)
    return value


def _compare_device_result(
    what: str, device: torch.device, actual: Any, expected: Any, rtol: float | None, atol: float | None
) -> None:
    if device.type == "meta":
        found = first_mismatch(actual, _meta_placeholders(expected))
        if found is not None:
            raise CheckFailed(
                _STRUCTURE_MISMATCH.format(what=what, device=device, path=found.path, details=indent(found.render()))
            )
        return
    for path, exp_tensor, act_tensor in _paired_tensors(actual, expected, "output"):
        d_rtol, d_atol = device_tolerance(device, exp_tensor.dtype)
        use_rtol = d_rtol if rtol is None else rtol
        use_atol = d_atol if atol is None else atol
        found = first_mismatch(act_tensor, exp_tensor, path=path, rtol=use_rtol, atol=use_atol)
        if found is not None:
            raise CheckFailed(
                _DISAGREE.format(
                    what=what,
                    device=device,
                    path=found.path,
                    dtype=exp_tensor.dtype,
                    rtol=use_rtol,
                    atol=use_atol,
                    tf32=_tf32_report(),
                    details=indent(found.render()),
                )
            )
    structural = first_mismatch(_meta_placeholders(actual), _meta_placeholders(expected))
    if structural is not None:
        raise CheckFailed(
            _STRUCTURE_MISMATCH.format(
                what=what, device=device, path=structural.path, details=indent(structural.render())
            )
        )


def _paired_tensors(actual: Any, expected: Any, path: str) -> list[tuple[str, torch.Tensor, torch.Tensor]]:
    """``(path, expected, actual)`` for every tensor position both structures share."""
    if isinstance(expected, torch.Tensor) and isinstance(actual, torch.Tensor):
        return [(path, expected, actual)]
    pairs: list[tuple[str, torch.Tensor, torch.Tensor]] = []
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        for key in expected:
            if key in actual:
                pairs += _paired_tensors(actual[key], expected[key], f"{path}[{key!r}]")
    elif isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
        for i, (a, e) in enumerate(zip(actual, expected)):
            pairs += _paired_tensors(a, e, f"{path}[{i}]")
    return pairs
