"""assert_close-style comparison shared by every check.

One place that turns "these two tensors (or nested structures) differ" into a message
with the shape of ``torch.testing.assert_close``'s: a header, the number of mismatched
elements, the greatest absolute and relative difference with their index and the
allowed tolerance. Checks prepend *what* and *where*; this module says *how big*.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch

__all__ = [
    "Mismatch",
    "callable_name",
    "compare_tensors",
    "default_tolerance",
    "detach_to_cpu",
    "first_mismatch",
    "format_index",
    "indent",
]

# (rtol, atol) per dtype, the defaults of torch.testing.assert_close.
_DEFAULT_TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float16: (1e-3, 1e-5),
    torch.bfloat16: (1.6e-2, 1e-5),
    torch.float32: (1.3e-6, 1e-5),
    torch.float64: (1e-7, 1e-7),
    torch.complex64: (1.3e-6, 1e-5),
    torch.complex128: (1e-7, 1e-7),
}


@dataclass(frozen=True)
class Mismatch:
    """Where two results first differ (``path`` like ``output[1]['logits']``) and the
    assert_close-style lines describing by how much."""

    path: str
    lines: tuple[str, ...]
    max_abs: float = math.nan

    def render(self) -> str:
        return "\n".join(self.lines)


def callable_name(fn: Any) -> str:
    """A readable name for a user callable: ``Cube.apply``, ``train_step``, ``Model``."""
    owner = getattr(fn, "__self__", None)
    name = getattr(fn, "__name__", None)
    if isinstance(owner, type) and name:
        return f"{owner.__name__}.{name}"
    return getattr(fn, "__qualname__", None) or name or type(fn).__name__


def default_tolerance(dtype: torch.dtype) -> tuple[float, float]:
    """``(rtol, atol)`` that ``torch.testing.assert_close`` would use for ``dtype``;
    zero for integer and bool dtypes."""
    return _DEFAULT_TOLERANCES.get(dtype, (0.0, 0.0))


def format_index(flat_index: int, shape: torch.Size) -> str:
    """``(1, 2)`` for a flat index into a tensor of ``shape``; ``()`` for scalars."""
    coords = []
    for size in reversed(shape):
        coords.append(flat_index % size)
        flat_index //= size
    return str(tuple(reversed(coords)))


def indent(text: str, prefix: str = "  ") -> str:
    return "\n".join(prefix + line if line else line for line in text.splitlines())


def detach_to_cpu(value: Any) -> Any:
    """The same nested structure with every tensor detached, cloned and moved to CPU,
    so later in-place updates or device effects cannot change what was recorded."""
    if isinstance(value, torch.Tensor):
        return value.detach().to("cpu", copy=True)
    if isinstance(value, Mapping):
        return {key: detach_to_cpu(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        items = [detach_to_cpu(item) for item in value]
        return type(value)(items) if not hasattr(value, "_fields") else type(value)(*items)
    return value


def compare_tensors(
    actual: torch.Tensor,
    expected: torch.Tensor,
    *,
    rtol: float = 0.0,
    atol: float = 0.0,
    equal_nan: bool = True,
) -> tuple[str, ...] | None:
    """``None`` when ``actual`` is within ``atol + rtol * |expected|`` of ``expected``
    everywhere (NaN equals NaN when ``equal_nan``); otherwise the message lines."""
    if actual.shape != expected.shape:
        return (f"Shapes differ: {tuple(actual.shape)} != {tuple(expected.shape)} (expected).",)
    if actual.dtype != expected.dtype:
        return (f"Dtypes differ: {actual.dtype} != {expected.dtype} (expected).",)
    a = actual.detach().cpu()
    e = expected.detach().cpu()
    if a.is_complex():
        a, e = torch.view_as_real(a), torch.view_as_real(e)
    a = a.to(torch.float64)
    e = e.to(torch.float64)
    both_nan = torch.isnan(a) & torch.isnan(e) if equal_nan else torch.zeros_like(a, dtype=torch.bool)
    same_inf = torch.isinf(a) & (a == e)
    diff = (a - e).abs()
    diff = torch.where(both_nan | same_inf, torch.zeros_like(diff), diff)
    diff = torch.where(torch.isnan(diff), torch.full_like(diff, math.inf), diff)
    allowed = atol + rtol * e.abs()
    mismatched = diff > torch.where(torch.isnan(allowed), torch.zeros_like(allowed), allowed)
    count = int(mismatched.sum())
    if count == 0:
        return None
    rel = torch.where(diff == 0, torch.zeros_like(diff), diff / e.abs())
    rel = torch.where(torch.isnan(rel), torch.full_like(rel, math.inf), rel)
    total = a.numel()
    abs_index = int(diff.flatten().argmax())
    rel_index = int(rel.flatten().argmax())
    header = "Tensor-likes are not equal!" if rtol == 0 and atol == 0 else "Tensor-likes are not close!"
    return (
        header,
        f"Mismatched elements: {count} / {total} ({100.0 * count / total:.1f}%)",
        f"Greatest absolute difference: {diff.flatten()[abs_index].item():.6g} at index "
        f"{format_index(abs_index, a.shape)} (up to {atol:g} allowed)",
        f"Greatest relative difference: {rel.flatten()[rel_index].item():.6g} at index "
        f"{format_index(rel_index, a.shape)} (up to {rtol:g} allowed)",
    )


def first_mismatch(
    actual: Any,
    expected: Any,
    *,
    path: str = "output",
    rtol: float | None = None,
    atol: float | None = None,
) -> Mismatch | None:
    """Walk two nested structures (tensors, numbers, sequences, mappings) in step and
    describe the first place where they differ. ``rtol``/``atol`` default to the
    assert_close tolerance of each tensor's dtype (0 and 0 means bit-exact)."""
    if isinstance(expected, torch.Tensor) or isinstance(actual, torch.Tensor):
        if not (isinstance(expected, torch.Tensor) and isinstance(actual, torch.Tensor)):
            return Mismatch(path, (f"Types differ: {type(actual).__name__} != {type(expected).__name__} (expected).",))
        default_rtol, default_atol = default_tolerance(expected.dtype)
        lines = compare_tensors(
            actual,
            expected,
            rtol=default_rtol if rtol is None else rtol,
            atol=default_atol if atol is None else atol,
        )
        if lines is None:
            return None
        return Mismatch(path, lines, _max_abs(actual, expected))
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping) or set(actual) != set(expected):
            got = sorted(map(str, actual)) if isinstance(actual, Mapping) else type(actual).__name__
            return Mismatch(path, (f"Keys differ: {got} != {sorted(map(str, expected))} (expected).",))
        for key in expected:
            found = first_mismatch(actual[key], expected[key], path=f"{path}[{key!r}]", rtol=rtol, atol=atol)
            if found is not None:
                return found
        return None
    if isinstance(expected, Sequence) and not isinstance(expected, (str, bytes)):
        if not isinstance(actual, Sequence) or len(actual) != len(expected):
            got = len(actual) if isinstance(actual, Sequence) else type(actual).__name__
            return Mismatch(path, (f"Lengths differ: {got} != {len(expected)} (expected).",))
        for i, (a_item, e_item) in enumerate(zip(actual, expected)):
            found = first_mismatch(a_item, e_item, path=f"{path}[{i}]", rtol=rtol, atol=atol)
            if found is not None:
                return found
        return None
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        diff = abs(actual - expected)
        allowed = (atol or 0.0) + (rtol or 0.0) * abs(expected)
        if diff <= allowed or (math.isnan(actual) and math.isnan(expected)):
            return None
        return Mismatch(
            path,
            (f"Scalars are not close: {actual!r} != {expected!r} (expected); "
             f"absolute difference {diff:.6g} (up to {allowed:g} allowed)",),
            float(diff),
        )
    if actual != expected:
        return Mismatch(path, (f"Values differ: {actual!r} != {expected!r} (expected).",))
    return None


def _max_abs(actual: torch.Tensor, expected: torch.Tensor) -> float:
    if actual.shape != expected.shape or actual.numel() == 0:
        return math.nan
    diff = (actual.detach().cpu().to(torch.float64) - expected.detach().cpu().to(torch.float64)).abs()
    return float(diff.max())
