"""Comparing a training curve with its golden: tolerances, the envelope, what moved.

Imports neither torch nor pytest (``torchcheck golden review`` uses it too). Tolerances are
policy, never stored in a golden file: they come from the test (``tolerance=``), from
``[tool.torchcheck.golden]`` in pyproject.toml, or from the defaults per precision below.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Union

from torchcheck.checks._golden_format import GoldenKey, GoldenRecord

__all__ = [
    "Approx",
    "Exact",
    "MetricComparison",
    "Tolerance",
    "compare_records",
    "default_tolerance",
    "describe_changes",
    "policy_tolerances",
    "resolve_tolerances",
]

#: Columns compared exactly whatever the tolerance says: host-side arithmetic.
ALWAYS_EXACT = ("step", "lr", "loss_scale")
#: Columns whose default tolerance follows the precision of the run.
PRECISION_COLUMNS = ("loss", "grad_norm", "param_norm", "update_norm")
GRAD_NORM_FACTOR = 5.0

# precision -> default Approx rtol for the loss (grad_norm 5x looser); estimates for GPUs
# until a GPU run measures them.
_APPROX_RTOL = {"tf32": 2e-3, "float16": 5e-3, "bfloat16": 1e-2}
_FULL_PRECISION = ("float64", "float32")
_CPU_RTOL = 1e-5
_ACCELERATOR_RTOL = 1e-4
_EXACT_DEVICES = ("cpu", "cuda", "rocm")

_USER_METRIC_WITHOUT_TOLERANCE = (
    "step_fn returns the metric(s) {names} besides the loss; say how closely they must match, "
    "e.g. tolerance={{{example!r}: tc.Approx(atol=1e-3)}} (or one tc.Exact()/tc.Approx() for every column)"
)
_BAD_POLICY = "{source}: {problem}"


@dataclass(frozen=True)
class Exact:
    """Every stored value equal, bit for bit, at every step."""

    def allows(self, value: float, golden: float, step: int) -> bool:
        return value == golden

    def describe(self, step: int) -> str:
        return "exact"

    @property
    def budget(self) -> int:
        return 0


@dataclass(frozen=True)
class Approx:
    """``|x - g| <= atol + rtol * |g|`` at every step but at most ``budget`` of them."""

    rtol: float = 0.0
    atol: float = 0.0
    _: dataclasses.KW_ONLY
    budget: int = 0

    def __post_init__(self) -> None:
        for name in ("rtol", "atol"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not value >= 0:
                raise ValueError(f"Approx({name}={value!r}): expected a number >= 0")
        if not isinstance(self.budget, int) or isinstance(self.budget, bool) or self.budget < 0:
            raise ValueError(f"Approx(budget={self.budget!r}): expected a whole number of steps >= 0")

    def allowed(self, golden: float) -> float:
        return self.atol + self.rtol * abs(golden)

    def allows(self, value: float, golden: float, step: int) -> bool:
        return abs(value - golden) <= self.allowed(golden)

    def describe(self, step: int) -> str:
        parts = [_percent(self.rtol)] if self.rtol else []
        if self.atol or not parts:
            parts.append(f"{self.atol:g} absolute")
        return " + ".join(parts)


Tolerance = Union[Exact, Approx]


def _percent(fraction: float) -> str:
    return f"{fraction * 100:.3g}%"


def default_approx(key: GoldenKey) -> Approx:
    """The ``Approx`` a curve of this key gets where an exact comparison is impossible
    (``missing="nearest"``) or unwanted."""
    if key.precision in _APPROX_RTOL:
        return Approx(rtol=_APPROX_RTOL[key.precision])
    return Approx(rtol=_CPU_RTOL if key.device == "cpu" else _ACCELERATOR_RTOL)


def default_tolerance(key: GoldenKey) -> Tolerance:
    """The loss's default: exact in full precision on a pinned CPU or GPU (the key holds the
    CPU capability; on a GPU, ``Exact()`` adds the device name to it), else ``Approx``."""
    if key.precision in _FULL_PRECISION and key.device in _EXACT_DEVICES:
        return Exact()
    return default_approx(key)


def _looser(tolerance: Tolerance, factor: float) -> Tolerance:
    if isinstance(tolerance, Approx):
        return Approx(tolerance.rtol * factor, tolerance.atol * factor, budget=tolerance.budget)
    return tolerance


def resolve_tolerances(
    columns: Sequence[str],
    key: GoldenKey,
    tolerance: Tolerance | Mapping[str, Tolerance] | None = None,
    policy: Mapping[str, Tolerance] | None = None,
    *,
    approximate: bool = False,
) -> dict[str, Tolerance]:
    """One tolerance per column: the test's ``tolerance`` (one for every column, or one
    per column), else the pyproject ``policy``, else the default. ``lr`` and
    ``loss_scale`` stay exact unless named explicitly. ``approximate`` (a golden of
    another key) turns every ``Exact()`` of a numeric column into the default ``Approx``."""
    base = default_tolerance(key)
    resolved: dict[str, Tolerance] = {}
    missing = []
    for column in columns:
        if column in ALWAYS_EXACT:
            chosen: Tolerance | None = Exact()
        elif column in PRECISION_COLUMNS:
            chosen = _looser(base, GRAD_NORM_FACTOR) if column == "grad_norm" else base
        else:
            chosen = None
        if policy and column in policy:
            chosen = policy[column]
        if isinstance(tolerance, (Exact, Approx)) and column not in ALWAYS_EXACT:
            chosen = tolerance
        elif isinstance(tolerance, Mapping) and column in tolerance:
            chosen = _checked(tolerance[column], column)
        if chosen is None:
            missing.append(column)
            continue
        if approximate and isinstance(chosen, Exact) and column not in ALWAYS_EXACT:
            approx = default_approx(key)
            chosen = _looser(approx, GRAD_NORM_FACTOR) if column == "grad_norm" else approx
        resolved[column] = chosen
    if missing:
        names = ", ".join(repr(name) for name in missing)
        raise ValueError(_USER_METRIC_WITHOUT_TOLERANCE.format(names=names, example=missing[0]))
    return resolved


def _checked(value: Any, column: str) -> Tolerance:
    if not isinstance(value, (Exact, Approx)):
        raise TypeError(f"tolerance[{column!r}] is {value!r}; expected tc.Exact() or tc.Approx(...)")
    return value


def policy_tolerances(table: Mapping[str, Any], key: GoldenKey, source: str) -> dict[str, Tolerance]:
    """Per-column tolerances for ``key`` from ``[tool.torchcheck.golden] tolerance``:
    ``{"cuda-*-bfloat16-*" = {loss = {rtol = 2e-2}, grad_norm = "exact"}}``. Patterns
    match the golden file's name without ``.json``; later patterns win."""
    found: dict[str, Tolerance] = {}
    for pattern, columns in table.items():
        if not fnmatch.fnmatchcase(key.stem, str(pattern)):
            continue
        if not isinstance(columns, Mapping):
            raise ValueError(_BAD_POLICY.format(source=f"{source} {pattern!r}", problem="expected a table of columns"))
        for column, value in columns.items():
            found[str(column)] = parse_tolerance(value, f"{source} {pattern!r}.{column}")
    return found


def parse_tolerance(value: Any, source: str) -> Tolerance:
    """``"exact"`` or a table of ``rtol``/``atol``/``budget``."""
    if value == "exact":
        return Exact()
    if isinstance(value, Mapping):
        unknown = set(value) - {"rtol", "atol", "budget"}
        if unknown:
            problem = f"unknown setting(s) {', '.join(sorted(map(str, unknown)))}; expected rtol, atol, budget"
            raise ValueError(_BAD_POLICY.format(source=source, problem=problem))
        try:
            return Approx(**{str(k): v for k, v in value.items()})
        except ValueError as error:
            raise ValueError(_BAD_POLICY.format(source=source, problem=error)) from None
    raise ValueError(_BAD_POLICY.format(source=source, problem=f"{value!r}; expected \"exact\" or {{rtol = ...}}"))


# ------------------------------------------------------------------ comparison


@dataclass(frozen=True)
class MetricComparison:
    """One column of a curve against its golden."""

    column: str
    tolerance: Tolerance
    outside: tuple[int, ...]  # steps outside the envelope
    values: tuple[Any, ...]
    goldens: tuple[Any, ...]

    @property
    def fails(self) -> bool:
        return len(self.outside) > self.tolerance.budget

    @property
    def first_outside(self) -> int | None:
        return self.outside[0] if self.outside else None

    def inside_at(self, step: int) -> bool:
        return step not in self.outside

    def value(self, step: int) -> Any:
        return self.values[step - 1]

    def golden(self, step: int) -> Any:
        return self.goldens[step - 1]


def within(value: Any, golden: Any, tolerance: Tolerance, step: int) -> bool:
    """Whether one value lies inside the envelope; ``None`` (a step GradScaler skipped)
    and non-finite values must match in kind."""
    if value is None or golden is None:
        return value is None and golden is None
    if not (math.isfinite(value) and math.isfinite(golden)):
        if math.isnan(value) or math.isnan(golden):
            return math.isnan(value) and math.isnan(golden)
        return value == golden
    return tolerance.allows(value, golden, step)


def compare_records(
    curve: GoldenRecord, golden: GoldenRecord, tolerances: Mapping[str, Tolerance]
) -> list[MetricComparison]:
    """Every column but ``step``, in the golden's column order."""
    results = []
    for column in golden.columns[1:]:
        values, goldens = tuple(curve.column(column)), tuple(golden.column(column))
        tolerance = tolerances[column]
        outside = tuple(
            step
            for step, (value, expected) in enumerate(zip(values, goldens), start=1)
            if not within(value, expected, tolerance, step)
        )
        results.append(MetricComparison(column, tolerance, outside, values, goldens))
    return results


def relative_change(value: Any, golden: Any) -> float | None:
    """``(value - golden) / |golden|``; ``None`` where it means nothing."""
    if value is None or golden is None or not (math.isfinite(value) and math.isfinite(golden)):
        return None
    if golden == 0:
        return 0.0 if value == 0 else math.inf
    return (value - golden) / abs(golden)


def format_change(value: Any, golden: Any) -> str:
    change = relative_change(value, golden)
    if change is None:
        return "n/a"
    if math.isinf(change):
        return f"{value - golden:+.3g} abs"
    return f"{change * 100:+.3g}%"


def format_value(value: Any) -> str:
    if value is None:
        return "skipped"
    if isinstance(value, float):
        return f"{value:.7g}"
    return str(value)


def describe_changes(old: GoldenRecord | None, new: GoldenRecord) -> str:
    """``loss: max 0.01% over 20 steps, first change at step 3; grad_norm: unchanged``:
    what a re-recording moved (every column but ``step``)."""
    if old is None:
        return f"new golden, {new.steps} steps"
    if old.columns != new.columns or old.steps != new.steps:
        return (
            f"columns or steps changed: {old.steps} steps of {', '.join(old.columns[1:])} -> "
            f"{new.steps} steps of {', '.join(new.columns[1:])}"
        )
    parts = [_column_change(column, old.column(column), new.column(column)) for column in new.columns[1:]]
    if old.init_sha256 != new.init_sha256:
        parts.append("initial weights changed")
    if old.data_sha256 != new.data_sha256:
        parts.append("batches changed")
    return "; ".join(parts)


def _column_change(column: str, before: Sequence[Any], after: Sequence[Any]) -> str:
    changed = [
        step
        for step, (a, b) in enumerate(zip(before, after), start=1)
        if not within(b, a, Exact(), step)
    ]
    if not changed:
        return f"{column}: unchanged"
    largest = 0.0
    for a, b in zip(before, after):
        change = relative_change(b, a)
        if change is not None:
            largest = max(largest, abs(change))
    size = "non-finite or skipped steps" if largest == 0.0 else f"max {largest * 100:.3g}%"
    return f"{column}: {size} over {len(after)} steps, first change at step {changed[0]}"
