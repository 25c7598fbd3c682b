"""Structural, assert_close-style comparison shared by every check.

Two results (a tensor, or any nested structure: numbers, strings, ``None``,
lists/tuples/namedtuples/dicts/dataclasses, transformers' ``ModelOutput``, and plain
objects that hold tensors such as a ``DynamicCache``) are walked in step, all the way
down. Nothing is compared by identity: an object without its own ``__eq__`` is compared
by its attributes. A leaf that cannot be compared at all (a ``torch.Generator``, a lock)
is named in a note instead of failing the check.

The first difference becomes a :class:`Mismatch` shaped like the message of
``torch.testing.assert_close``: the path (``output.past_key_values.layers[0].keys``),
the number of mismatched elements, the greatest absolute and relative difference with
their index and the allowed tolerance. Checks prepend *what*; this module says *where*
and *how big*.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import math
import types
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = [
    "Comparison",
    "Mismatch",
    "UncomparedWarning",
    "callable_name",
    "compare_structures",
    "compare_tensors",
    "default_tolerance",
    "detach_to_cpu",
    "first_mismatch",
    "format_index",
    "indent",
    "iter_tensors",
    "map_tensors",
    "named_children",
    "warn_uncompared",
]

Tolerance = Callable[[torch.dtype], tuple[float, float]]

# (rtol, atol) per dtype, the defaults of torch.testing.assert_close.
_DEFAULT_TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float16: (1e-3, 1e-5),
    torch.bfloat16: (1.6e-2, 1e-5),
    torch.float32: (1.3e-6, 1e-5),
    torch.float64: (1e-7, 1e-7),
    torch.complex64: (1.3e-6, 1e-5),
    torch.complex128: (1e-7, 1e-7),
}

# Leaves with a meaningful ``==``. Functions, classes and modules are program objects:
# the same one is the same value.
_VALUE_TYPES: tuple[type, ...] = (
    type(None),
    bool,
    int,
    float,
    complex,
    str,
    bytes,
    enum.Enum,
    torch.dtype,
    torch.device,
    torch.layout,
    torch.memory_format,
    torch.Size,
    type,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.ModuleType,
    range,
    slice,
)

_MAX_DEPTH = 64

_UNCOMPARED_NOTE = (
    "torchcheck could not compare {count} value(s) of these results and skipped them "
    "(no tensors, numbers or attributes to compare): {paths}"
)


class UncomparedWarning(UserWarning):
    """Some leaves of two compared results had no way to be compared and were skipped."""


@dataclass(frozen=True)
class Mismatch:
    """Where two results first differ (``path`` like ``output.logits`` or
    ``output['pair'][1]``) and the assert_close-style lines describing by how much."""

    path: str
    lines: tuple[str, ...]
    max_abs: float = math.nan
    dtype: torch.dtype | None = None

    def render(self) -> str:
        return "\n".join(self.lines)


@dataclass(frozen=True)
class Comparison:
    """The outcome of :func:`compare_structures`: the first mismatch (``None`` when the
    results agree) and the paths of leaves that could not be compared."""

    mismatch: Mismatch | None
    uncompared: tuple[str, ...] = ()

    @property
    def equal(self) -> bool:
        return self.mismatch is None

    def note(self) -> str:
        """One line naming the skipped leaves; empty when every leaf was compared."""
        if not self.uncompared:
            return ""
        return _UNCOMPARED_NOTE.format(count=len(self.uncompared), paths=", ".join(self.uncompared))


# ---------------------------------------------------------------- small helpers


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


def warn_uncompared(check: str, comparison: Comparison, stacklevel: int = 3) -> None:
    """Tell the user (an :class:`UncomparedWarning`) which leaves ``check`` skipped."""
    if comparison.uncompared:
        warnings.warn(UncomparedWarning(f"{check}: {comparison.note()}"), stacklevel=stacklevel)


# ------------------------------------------------------------------- traversal


def _is_value(value: Any) -> bool:
    return isinstance(value, _VALUE_TYPES)


def _is_namedtuple(value: Any) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def _is_attribute_mapping(value: Mapping[Any, Any]) -> bool:
    """A mapping whose keys are also attributes (transformers' ``ModelOutput``)."""
    return dataclasses.is_dataclass(value)


def _has_own_eq(value: Any) -> bool:
    return type(value).__eq__ is not object.__eq__


def _object_state(value: Any) -> dict[str, Any] | None:
    """An object's attributes (``__dict__`` and ``__slots__``), or ``None`` if it has none."""
    state: dict[str, Any] = {}
    if hasattr(value, "__dict__"):
        try:
            state.update(vars(value))
        except TypeError:
            pass
    for cls in type(value).__mro__:
        for slot in getattr(cls, "__slots__", ()):
            if slot not in ("__dict__", "__weakref__") and hasattr(value, slot):
                state.setdefault(slot, getattr(value, slot))
    return state if state or hasattr(value, "__dict__") else None


def named_children(value: Any) -> list[tuple[str, Any]] | None:
    """The parts of a container or object as ``(path suffix, child)`` pairs, in order:
    ``.logits`` for ``ModelOutput`` keys, namedtuple, dataclass fields and attributes,
    ``['key']`` for other mapping keys, ``[0]`` for sequence items. ``None`` for a leaf
    (a tensor, a plain value, or an object without attributes)."""
    if isinstance(value, torch.Tensor) or _is_value(value):
        return None
    if isinstance(value, Mapping):
        if _is_attribute_mapping(value):
            return [(f".{key}" if isinstance(key, str) else f"[{key!r}]", item) for key, item in value.items()]
        return [(f"[{key!r}]", item) for key, item in value.items()]
    if _is_namedtuple(value):
        return [(f".{name}", item) for name, item in zip(type(value)._fields, value)]
    if isinstance(value, (list, tuple)) or (isinstance(value, Sequence) and not isinstance(value, (str, bytes))):
        return [(f"[{i}]", item) for i, item in enumerate(value)]
    if isinstance(value, (set, frozenset)):
        return None
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [(f".{f.name}", getattr(value, f.name)) for f in dataclasses.fields(value)]
    if callable(value) and not hasattr(value, "__dict__"):
        return None
    state = _object_state(value)
    if state is None:
        return None
    return [(f".{name}", item) for name, item in state.items()]


def iter_tensors(value: Any, path: str = "output") -> Iterator[tuple[str, torch.Tensor]]:
    """Every tensor in a nested structure with its path, depth first, each object once."""
    yield from _iter_tensors(value, path, set(), 0)


def _iter_tensors(value: Any, path: str, seen: set[int], depth: int) -> Iterator[tuple[str, torch.Tensor]]:
    if isinstance(value, torch.Tensor):
        yield path, value
        return
    if id(value) in seen or depth > _MAX_DEPTH:
        return
    children = named_children(value)
    if children is None:
        return
    seen.add(id(value))
    for suffix, child in children:
        yield from _iter_tensors(child, path + suffix, seen, depth + 1)


def map_tensors(value: Any, fn: Callable[[torch.Tensor], Any]) -> Any:
    """A copy of ``value`` with every tensor ``t`` replaced by ``fn(t)``.

    Works for any structure :func:`named_children` can see into, including objects such
    as HF caches: the copy is a ``copy.deepcopy`` whose memo already maps each tensor to
    its replacement, so aliasing is kept and no tensor is copied twice.
    """
    if isinstance(value, torch.Tensor):
        return fn(value)
    replacements = {}
    for _, tensor in iter_tensors(value):
        if id(tensor) not in replacements:
            replacements[id(tensor)] = fn(tensor)
    memo: dict[int, Any] = dict(replacements)
    try:
        return copy.deepcopy(value, memo)
    except Exception:  # an object that refuses to be copied: rebuild what we can see
        return _rebuild(value, replacements)


def _rebuild(value: Any, replacements: Mapping[int, Any]) -> Any:
    if isinstance(value, torch.Tensor):
        return replacements.get(id(value), value)
    if isinstance(value, Mapping) and not _is_attribute_mapping(value):
        return {key: _rebuild(item, replacements) for key, item in value.items()}
    if _is_namedtuple(value):
        return type(value)(*(_rebuild(item, replacements) for item in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_rebuild(item, replacements) for item in value)
    return value


def detach_to_cpu(value: Any) -> Any:
    """A copy of a nested structure with every tensor detached, cloned and moved to CPU
    (meta tensors stay on meta: they hold no data), so later in-place updates or device
    effects cannot change what was recorded."""
    return map_tensors(value, _detached_cpu_copy)


def _detached_cpu_copy(tensor: torch.Tensor) -> torch.Tensor:
    if tensor.is_meta:
        return tensor.detach()
    return tensor.detach().to("cpu", copy=True)


# ------------------------------------------------------------------ comparison


def compare_tensors(
    actual: torch.Tensor,
    expected: torch.Tensor,
    *,
    rtol: float = 0.0,
    atol: float = 0.0,
    equal_nan: bool = True,
) -> tuple[str, ...] | None:
    """``None`` when ``actual`` is within ``atol + rtol * |expected|`` of ``expected``
    everywhere (NaN equals NaN when ``equal_nan``); otherwise the message lines.
    Meta tensors hold no values: only their shapes and dtypes are compared."""
    if actual.shape != expected.shape:
        return (f"Shapes differ: {tuple(actual.shape)} != {tuple(expected.shape)} (expected).",)
    if actual.dtype != expected.dtype:
        return (f"Dtypes differ: {actual.dtype} != {expected.dtype} (expected).",)
    if actual.is_meta or expected.is_meta:
        return None
    a, e = _as_float64(actual), _as_float64(expected)
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


def _as_float64(tensor: torch.Tensor) -> torch.Tensor:
    value = tensor.detach().cpu()
    if value.layout != torch.strided:
        value = value.to_dense()
    if value.is_complex():
        value = torch.view_as_real(value)
    return value.to(torch.float64)


def compare_structures(
    actual: Any,
    expected: Any,
    *,
    path: str = "output",
    rtol: float | None = None,
    atol: float | None = None,
    tolerance: Tolerance = default_tolerance,
    ignore_types: tuple[type, ...] = (),
) -> Comparison:
    """Walk two results in step and describe the first place where they differ.

    ``rtol``/``atol`` apply to every tensor and number; where one is ``None`` it comes
    from ``tolerance(dtype)`` (by default torch.testing.assert_close's per-dtype values;
    0 and 0 means bit-exact). Leaves of ``ignore_types`` are not compared (e.g.
    ``torch.device`` when results from two devices are compared). Leaves that cannot be
    compared are listed in :attr:`Comparison.uncompared`, never reported as a mismatch.
    """
    walker = _Walker(rtol, atol, tolerance, ignore_types)
    mismatch = walker.compare(actual, expected, path, 0)
    return Comparison(mismatch, tuple(walker.uncompared))


def first_mismatch(
    actual: Any,
    expected: Any,
    *,
    path: str = "output",
    rtol: float | None = None,
    atol: float | None = None,
) -> Mismatch | None:
    """:func:`compare_structures` reduced to its mismatch (uncomparable leaves ignored)."""
    return compare_structures(actual, expected, path=path, rtol=rtol, atol=atol).mismatch


class _Walker:
    """One structural comparison: tolerances, skipped leaves and cycle protection."""

    def __init__(
        self, rtol: float | None, atol: float | None, tolerance: Tolerance, ignore_types: tuple[type, ...]
    ) -> None:
        self.rtol = rtol
        self.atol = atol
        self.tolerance = tolerance
        self.ignore_types = ignore_types
        self.uncompared: list[str] = []
        self._active: set[tuple[int, int]] = set()

    def compare(self, actual: Any, expected: Any, path: str, depth: int) -> Mismatch | None:
        actual, expected = _from_numpy(actual), _from_numpy(expected)
        if isinstance(expected, self.ignore_types) and isinstance(actual, self.ignore_types):
            return None
        if isinstance(expected, types.MethodType) and isinstance(actual, types.MethodType):
            return _values(actual.__func__, expected.__func__, path)
        if isinstance(expected, torch.Tensor) or isinstance(actual, torch.Tensor):
            return self._tensors(actual, expected, path)
        if _is_number(expected) and _is_number(actual):
            return self._numbers(actual, expected, path)
        if _is_value(expected) or _is_value(actual):
            return _values(actual, expected, path)
        pair = (id(actual), id(expected))
        if pair in self._active or depth > _MAX_DEPTH:
            return None  # a cycle (or absurd depth): the way in is already being compared
        self._active.add(pair)
        try:
            return self._containers(actual, expected, path, depth)
        finally:
            self._active.discard(pair)

    def _tensors(self, actual: Any, expected: Any, path: str) -> Mismatch | None:
        if not (isinstance(expected, torch.Tensor) and isinstance(actual, torch.Tensor)):
            return _types_differ(actual, expected, path)
        default_rtol, default_atol = self.tolerance(expected.dtype)
        lines = compare_tensors(
            actual,
            expected,
            rtol=default_rtol if self.rtol is None else self.rtol,
            atol=default_atol if self.atol is None else self.atol,
        )
        if lines is None:
            return None
        return Mismatch(path, lines, _max_abs(actual, expected), expected.dtype)

    def _numbers(self, actual: float, expected: float, path: str) -> Mismatch | None:
        if isinstance(actual, bool) or isinstance(expected, bool):
            return _values(actual, expected, path)
        # Python numbers are doubles (or exact integers): float64's default tolerance.
        default_rtol, default_atol = self.tolerance(torch.float64) if isinstance(expected, float) else (0.0, 0.0)
        rtol = default_rtol if self.rtol is None else self.rtol
        atol = default_atol if self.atol is None else self.atol
        diff = abs(actual - expected)
        allowed = atol + rtol * abs(expected)
        if diff <= allowed or (_is_nan(actual) and _is_nan(expected)):
            return None
        return Mismatch(
            path,
            (f"Scalars are not close: {actual!r} != {expected!r} (expected); "
             f"absolute difference {diff:.6g} (up to {allowed:g} allowed)",),
            float(diff),
            torch.float64,
        )

    def _containers(self, actual: Any, expected: Any, path: str, depth: int) -> Mismatch | None:
        if isinstance(expected, Mapping) or isinstance(actual, Mapping):
            return self._mappings(actual, expected, path, depth)
        expected_children = named_children(expected)
        actual_children = named_children(actual)
        if _is_sequence(expected) or _is_sequence(actual):
            if not (_is_sequence(expected) and _is_sequence(actual)):
                return _types_differ(actual, expected, path)
            if len(actual_children or ()) != len(expected_children or ()):
                return Mismatch(path, (f"Lengths differ: {len(actual)} != {len(expected)} (expected).",))
            return self._children(actual_children or [], expected_children or [], path, depth)
        if type(actual) is not type(expected):
            return _types_differ(actual, expected, path)
        if _has_own_eq(expected) and _equal_by_eq(actual, expected):
            return None
        if expected_children is None or actual_children is None:
            return self._opaque(actual, expected, path)
        return self._attributes(actual_children, expected_children, path, depth)

    def _mappings(self, actual: Any, expected: Any, path: str, depth: int) -> Mismatch | None:
        if not (isinstance(actual, Mapping) and isinstance(expected, Mapping)):
            return _types_differ(actual, expected, path)
        if set(actual) != set(expected):
            return Mismatch(
                path,
                (f"Keys differ: {sorted(map(str, actual))} != {sorted(map(str, expected))} (expected).",),
            )
        attribute_style = _is_attribute_mapping(expected)
        for key in expected:
            suffix = f".{key}" if attribute_style and isinstance(key, str) else f"[{key!r}]"
            found = self.compare(actual[key], expected[key], path + suffix, depth + 1)
            if found is not None:
                return found
        return None

    def _attributes(
        self, actual: list[tuple[str, Any]], expected: list[tuple[str, Any]], path: str, depth: int
    ) -> Mismatch | None:
        actual_names = {name for name, _ in actual}
        expected_names = {name for name, _ in expected}
        if actual_names != expected_names:
            return Mismatch(
                path,
                (f"Attributes differ: {sorted(n[1:] for n in actual_names)} != "
                 f"{sorted(n[1:] for n in expected_names)} (expected).",),
            )
        actual_by_name = dict(actual)
        ordered = [(name, actual_by_name[name]) for name, _ in expected]
        return self._children(ordered, expected, path, depth)

    def _children(
        self, actual: list[tuple[str, Any]], expected: list[tuple[str, Any]], path: str, depth: int
    ) -> Mismatch | None:
        for (suffix, a_item), (_, e_item) in zip(actual, expected):
            found = self.compare(a_item, e_item, path + suffix, depth + 1)
            if found is not None:
                return found
        return None

    def _opaque(self, actual: Any, expected: Any, path: str) -> Mismatch | None:
        """A leaf with no attributes: sets compare by ``==``; anything else is skipped
        unless its own ``__eq__`` says it equals the other (never by identity)."""
        if isinstance(expected, (set, frozenset)) and isinstance(actual, (set, frozenset)):
            return None if actual == expected else _values(actual, expected, path)
        self.uncompared.append(f"{path} ({type(expected).__name__})")
        return None


def _from_numpy(value: Any) -> Any:
    """numpy arrays and scalars as tensors (numpy's ``==`` answers with an array)."""
    if type(value).__module__ != "numpy" or not hasattr(value, "__array__"):
        return value
    try:
        return torch.as_tensor(value.__array__())
    except (TypeError, RuntimeError):  # object or string arrays: leave to the walker
        return value


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, enum.Enum)


def _is_nan(value: float) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _is_sequence(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes, torch.Size))


def _equal_by_eq(actual: Any, expected: Any) -> bool:
    try:
        result = actual == expected
    except Exception:  # an __eq__ that cannot handle tensors inside: walk instead
        return False
    return result is True


def _values(actual: Any, expected: Any, path: str) -> Mismatch | None:
    if type(actual) is type(expected) or (_is_value(actual) and _is_value(expected)):
        if _equal_by_eq(actual, expected):
            return None
        return Mismatch(path, (f"Values differ: {actual!r} != {expected!r} (expected).",))
    return _types_differ(actual, expected, path)


def _types_differ(actual: Any, expected: Any, path: str) -> Mismatch:
    return Mismatch(path, (f"Types differ: {type(actual).__name__} != {type(expected).__name__} (expected).",))


def _max_abs(actual: torch.Tensor, expected: torch.Tensor) -> float:
    if actual.shape != expected.shape or actual.numel() == 0 or actual.is_meta or expected.is_meta:
        return math.nan
    return float((_as_float64(actual) - _as_float64(expected)).abs().max())
