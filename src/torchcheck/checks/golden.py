"""Golden training curves: train N steps, compare every step with a curve recorded earlier.

:func:`run_training` trains the user's own step under a pinned regime (seed, deterministic
algorithms, TF32, CPU threads) and records one row per step: the loss, the gradient norm as
the optimizer sees it, the learning rate, and optionally more. :func:`assert_golden_curve`
compares that curve with the golden file of this machine's key (device, hardware, precision,
world size, torch minor) and, when it leaves its envelope, says where first and why: other
batches, other initial weights, the forward of step 1, the scheduler, the loss scale, or the
phase (backward, optimizer update) where the first step moved.
"""

from __future__ import annotations

import dataclasses
import math
import os
import unittest
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch.distributed as dist

from torchcheck.checks._golden_compare import (
    Approx,
    Exact,
    MetricComparison,
    Tolerance,
    compare_records,
    describe_changes,
    format_change,
    format_value,
    relative_change,
    resolve_tolerances,
    within,
)
from torchcheck.checks._golden_format import (
    GoldenFileError,
    GoldenKey,
    GoldenRecord,
    read_golden,
    write_golden,
)
from torchcheck.checks._golden_training import (
    TrainingCurve,
    golden_key,
    run_training,
    world_size,
)
from torchcheck.checks._ranks import agreed
from torchcheck.checks.errors import CheckFailed

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = [
    "Approx",
    "Exact",
    "GoldenFileError",
    "GoldenKey",
    "GoldenMissing",
    "GoldenOutcome",
    "TrainingCurve",
    "assert_golden_curve",
    "check_golden_curve",
    "golden_key",
    "run_training",
]

MISSING_POLICIES = ("skip", "fail", "nearest")
UPDATE_MODES = ("all", "missing")
# Recorded for the reader, never a likely cause of a numeric difference.
_NOT_CAUSES = ("date", "git_commit", "torchcheck")
_RECORDED_LABELS = {
    "device_name": "device",
    "sm_count": "SM count",
    "cuda": "CUDA",
    "cudnn": "cuDNN",
    "rocm": "ROCm",
    "nccl": "NCCL",
    "torch": "torch",
    "python": "Python",
    "threads": "threads",
    "deterministic": "deterministic algorithms",
    "tf32": "TF32",
    "seed": "seed",
}

# --- messages ---------------------------------------------------------------------

_ENVELOPE = """\
assert_golden_curve: {name} leaves its golden envelope
({golden}):
{metrics}
{table}
{cause}{recorded}
{update}"""
_GOLDEN_SOURCE = "golden {file}, recorded {date} on {device} at {commit}"
_NEAREST_SOURCE = (
    "no golden for this machine's key {own}; compared with the nearest, {file}, recorded {date} on "
    "{device}, with approximate tolerances"
)
_METRIC_LINE = (
    "  {column} first outside at step {step} of {steps}: {value} vs golden {golden} ({change}; "
    "allowed {allowed}); {count} of {steps} steps outside (budget {budget})"
)
_DATA_CHANGED = """\
assert_golden_curve: {name}: the batches differ from the golden's (data_sha256 {actual}, \
golden {expected}, in {file}): the data pipeline or its seed changed, so nothing numeric is \
compared. Build the batches under the test's seed (seed {seed}, recorded seed {golden_seed}); \
if the new data is intended, record the golden again.
{update}"""
_INIT_CHANGED = """\
assert_golden_curve: {name}: the model's initialisation changed: make_model builds other \
initial weights under seed {seed} (init_sha256 {actual}) than when the golden was recorded \
(init_sha256 {expected}, seed {golden_seed}, torch {golden_torch}, in {file}), so every step \
would differ. A changed architecture, parameter order or initialiser (torch's own included) \
does this; if intended, record the golden again.
{update}"""
_SHAPE_CHANGED = """\
assert_golden_curve: {name}: the curve no longer has the golden's shape ({file}): {what}. \
The test changed; record the golden again.
{update}"""
_MISSING = """\
assert_golden_curve: no golden for {name} on this machine's key {stem} (in {directory}); \
{existing}.
To record it: {command}"""
_UNREPRODUCIBLE = """\
assert_golden_curve: refusing to record an exact golden for {name}: this machine does not \
reproduce its own curve. Two runs with the same seed differ at step {step} ({column}: {first} \
then {second}). A nondeterministic kernel or state that outlives a run (an unseeded \
generator, a module-level cache) is the usual cause: tc.assert_reproducible finds which. \
Or compare with tolerance=tc.Approx(...)."""

_CAUSE_FORWARD = (
    "Step 1's loss differs, and it is computed before any update: the forward, the initial "
    "weights or the data changed."
)
_CAUSE_MODULE = " The first module whose output moved at step 1: {module} (output L1 norm {value} vs golden {golden}, {change})."
_CAUSE_LR = (
    "The learning rate differs from step {step} on ({value} vs golden {golden}): the "
    "scheduler or the optimizer's lr changed."
)
_CAUSE_SCALE = (
    "The loss scale differs from step {step} on ({value} vs golden {golden}): GradScaler "
    "meets an overflow at another step (the overflow behaviour changed)."
)
_CAUSE_BACKWARD_FIRST = (
    "Step 1's loss agrees but its gradient does not: the change is in backward (or in what "
    "happens to the gradients before the optimizer: clipping, scaling)."
)
_CAUSE_BACKWARD = (
    "{agree} and step {step}'s gradient does not while its loss agrees{loss_gap}: "
    "the change is in backward (or in an update small enough to move the gradient before the "
    "loss). Gradients that accumulate across steps (a missing optimizer.zero_grad()) look "
    "like this."
)
_CAUSE_UPDATE = (
    "{agree}, gradients and learning rate included, and step {step}'s loss does "
    "not: the optimizer update of step {before} changed (an optimizer setting other than the "
    "lr, or the update rule)."
)
_CAUSE_METRIC = "Step {step} is the first that moves, in {column}."
_RECORDED_DIFFERENTLY = "\nRecorded differently: {differences}."
_UPDATE_PYTEST = (
    "To accept the new curve: pytest '{nodeid}' --torchcheck-update-golden\n"
    "then review the diff of {path}"
)
_UPDATE_PLAIN = (
    "To accept the new curve: call assert_golden_curve(..., update=True) once, then review "
    "the diff of {path}"
)
_RECORD_PYTEST = "pytest '{nodeid}' --torchcheck-update-golden=missing"
_RECORD_PLAIN = 'assert_golden_curve(..., update="missing")'


#: Rank 0's messages to the other ranks while it checks a distributed curve.
_RERUN, _DONE = "rerun", "done"


class GoldenMissing(unittest.SkipTest):
    """No golden for this machine's key and ``missing="skip"``: pytest (and unittest) report
    the test as skipped with this reason."""


# --- comparing with the golden ----------------------------------------------------


@dataclass(frozen=True)
class GoldenOutcome:
    """What :func:`check_golden_curve` did: ``compared``, ``written``, ``unchanged`` (an
    update that would have rewritten the same numbers) or ``skipped`` (no golden)."""

    status: str
    path: Path
    changes: str = ""
    stale: tuple[str, ...] = ()
    compared_with: str | None = None


def assert_golden_curve(
    curve: TrainingCurve,
    directory: str | os.PathLike[str],
    *,
    tolerance: Tolerance | Mapping[str, Tolerance] | None = None,
    update: bool | str = False,
    missing: str = "skip",
) -> None:
    """Compare ``curve`` with the golden file of its key in ``directory``.

    ``tolerance``: one ``tc.Exact()``/``tc.Approx(...)`` for every column, or one per column
    (``{"loss": tc.Approx(rtol=1e-2)}``); the defaults depend on the precision (exact in
    float32/float64 on CPU and CUDA, ``Approx`` otherwise). ``lr`` and ``loss_scale`` are
    exact unless named. ``update``: ``True``/``"all"`` writes the golden instead of comparing
    (an exact one only if a second run reproduces it), ``"missing"`` only where none exists.
    ``missing``: ``"skip"`` raises :class:`GoldenMissing` (a ``unittest.SkipTest``),
    ``"fail"`` a ``CheckFailed``, ``"nearest"`` compares with the closest key
    approximately. A golden file that cannot be read raises :class:`GoldenFileError` and is
    never overwritten.
    """
    check_golden_curve(curve, directory, tolerance=tolerance, update=update, missing=missing)


def check_golden_curve(
    curve: TrainingCurve,
    directory: str | os.PathLike[str],
    *,
    tolerance: Tolerance | Mapping[str, Tolerance] | None = None,
    update: bool | str | None = False,
    missing: str = "skip",
    policy: Mapping[str, Tolerance] | None = None,
    compare_init: bool = True,
) -> GoldenOutcome:
    """:func:`assert_golden_curve`, saying what it did; ``policy``: per-column tolerances
    from ``[tool.torchcheck.golden]``; ``compare_init``: fail on other initial weights.
    On the ranks of a process group, rank 0 reads and writes the file and every rank ends
    with its outcome or its failure."""
    options = {"tolerance": tolerance, "update": update, "missing": missing, "policy": policy, "compare_init": compare_init}
    if world_size() > 1:
        return _checked_on_rank_zero(curve, directory, options)
    return _checked(curve, directory, **options)


def _checked_on_rank_zero(curve: TrainingCurve, directory: str | os.PathLike[str], options: dict[str, Any]) -> GoldenOutcome:
    """Rank 0 checks; the others wait for its result. A rerun it asks for (to prove an exact
    golden reproducible) trains on every rank, since training runs collectives."""
    if dist.get_rank() != 0:
        return _serve_reruns(curve)
    rerun = curve.rerun

    def collective_rerun() -> TrainingCurve:
        agreed(_RERUN)
        assert rerun is not None
        return rerun()

    try:
        outcome = _checked(dataclasses.replace(curve, rerun=rerun and collective_rerun), directory, **options)
    except BaseException as error:
        agreed((_DONE, error))
        raise
    agreed((_DONE, outcome))
    return outcome


def _serve_reruns(curve: TrainingCurve) -> GoldenOutcome:
    while True:
        message = agreed(None)
        if message == _RERUN and curve.rerun is not None:
            curve.rerun()
            continue
        _, result = message
        if isinstance(result, BaseException):
            raise result
        return result


def _checked(
    curve: TrainingCurve,
    directory: str | os.PathLike[str],
    *,
    tolerance: Tolerance | Mapping[str, Tolerance] | None,
    update: bool | str | None,
    missing: str,
    policy: Mapping[str, Tolerance] | None,
    compare_init: bool,
) -> GoldenOutcome:
    mode = _update_mode(update)
    if missing not in MISSING_POLICIES:
        raise ValueError(f"missing must be one of {', '.join(MISSING_POLICIES)}, got {missing!r}")
    directory = Path(directory)
    tolerances = resolve_tolerances(curve.columns, curve.key, tolerance, policy)
    key = _effective_key(curve, tolerances)
    path = directory / key.file_name
    existing = read_golden(path, expected_stem=key.stem) if path.exists() else None
    name = curve.name or str(directory)
    record = dataclasses.replace(curve.as_record(name), key=key)
    if mode == "all" or (mode == "missing" and existing is None):
        return _record(curve, record, existing, path, tolerances)
    if existing is None:
        return _missing(record, directory, tolerance, policy, missing, compare_init)
    _compare(record, existing, tolerances, path, compare_init=compare_init)
    return GoldenOutcome("compared", path)


def _update_mode(update: bool | str | None) -> str | None:
    if update is True:
        return "all"
    if update in (False, None):
        return None
    if update not in UPDATE_MODES:
        raise ValueError(f"update must be True, False, 'all' or 'missing', got {update!r}")
    return str(update)


def _effective_key(curve: TrainingCurve, tolerances: Mapping[str, Tolerance]) -> GoldenKey:
    """cuBLAS picks algorithms by SM count, so exact GPU goldens are kept per device name."""
    if isinstance(tolerances.get("loss"), Exact) and curve.key.device in ("cuda", "rocm") and not curve.key.name:
        return curve.key.with_name(str(curve.recorded.get("device_name", "")))
    return curve.key


def _record(
    curve: TrainingCurve,
    record: GoldenRecord,
    existing: GoldenRecord | None,
    path: Path,
    tolerances: Mapping[str, Tolerance],
) -> GoldenOutcome:
    if isinstance(tolerances.get("loss"), Exact) and curve.rerun is not None:
        _require_reproducible(record, curve.rerun())
    if existing is not None and existing.same_numbers(record):
        return GoldenOutcome("unchanged", path, describe_changes(existing, record))
    write_golden(path, record)
    return GoldenOutcome("written", path, describe_changes(existing, record), _stale_keys(path, record))


def _require_reproducible(record: GoldenRecord, second: TrainingCurve) -> None:
    for row, again in zip(record.rows, second.rows):
        for column, first, then in zip(record.columns[1:], row[1:], again[1:]):
            if not within(then, first, Exact(), row[0]):
                raise CheckFailed(
                    _UNREPRODUCIBLE.format(name=record.curve, step=row[0], column=column, first=first, second=then)
                )


def _stale_keys(path: Path, record: GoldenRecord) -> tuple[str, ...]:
    """Other keys of the curve recorded from other initial weights or batches."""
    stale = []
    for other in sorted(path.parent.glob("*.json")):
        if other == path:
            continue
        try:
            sibling = read_golden(other)
        except (GoldenFileError, OSError):
            continue
        if (sibling.init_sha256, sibling.data_sha256) != (record.init_sha256, record.data_sha256):
            stale.append(other.name)
    return tuple(stale)


def _missing(
    record: GoldenRecord,
    directory: Path,
    tolerance: Tolerance | Mapping[str, Tolerance] | None,
    policy: Mapping[str, Tolerance] | None,
    missing: str,
    compare_init: bool,
) -> GoldenOutcome:
    others = _readable_goldens(directory)
    if missing == "nearest":
        nearest = _nearest(record.key, others)
        if nearest is not None:
            golden_path, golden = nearest
            tolerances = resolve_tolerances(record.columns, record.key, tolerance, policy, approximate=True)
            _compare(record, golden, tolerances, golden_path, compare_init=compare_init, own_key=record.key)
            return GoldenOutcome("compared", golden_path, compared_with=golden.key.stem)
    existing = (
        "keys recorded there: " + ", ".join(golden.key.stem for _, golden in others)
        if others
        else "none recorded there yet"
    )
    if missing == "nearest" and others:
        existing += " (none with this precision and world size, so none is near)"
    message = _MISSING.format(
        name=record.curve,
        stem=record.key.stem,
        directory=directory,
        existing=existing,
        command=_RECORD_PYTEST.format(nodeid=record.curve) if "::" in record.curve else _RECORD_PLAIN,
    )
    if missing == "fail":
        raise CheckFailed(message)
    raise GoldenMissing(message)


def _readable_goldens(directory: Path) -> list[tuple[Path, GoldenRecord]]:
    found = []
    for path in sorted(directory.glob("*.json")) if directory.is_dir() else ():
        try:
            found.append((path, read_golden(path, expected_stem=path.stem)))
        except (GoldenFileError, OSError):
            continue
    return found


def _nearest(key: GoldenKey, others: list[tuple[Path, GoldenRecord]]) -> tuple[Path, GoldenRecord] | None:
    """Scored as HF's ``Expectations``: same device type, then hardware, then torch minor;
    never across precisions or world sizes."""
    candidates = [
        (4 * (g.key.device == key.device) + 2 * (g.key.hardware == key.hardware) + (g.key.torch == key.torch), p.name, p, g)
        for p, g in others
        if g.key.precision == key.precision and g.key.world_size == key.world_size
    ]
    if not candidates:
        return None
    best = max(candidates, key=lambda c: (c[0], c[1]))
    return best[2], best[3]


def _compare(
    record: GoldenRecord,
    golden: GoldenRecord,
    tolerances: Mapping[str, Tolerance],
    path: Path,
    *,
    compare_init: bool,
    own_key: GoldenKey | None = None,
) -> None:
    update = _update_hint(record.curve, path if own_key is None else path.with_name(own_key.file_name))
    names = {"name": record.curve, "file": path, "update": update}
    if record.data_sha256 and golden.data_sha256 and record.data_sha256 != golden.data_sha256:
        raise CheckFailed(
            _DATA_CHANGED.format(
                actual=_short_hash(record.data_sha256),
                expected=_short_hash(golden.data_sha256),
                seed=record.recorded.get("seed"),
                golden_seed=golden.recorded.get("seed"),
                **names,
            )
        )
    if compare_init and record.init_sha256 and golden.init_sha256 and record.init_sha256 != golden.init_sha256:
        raise CheckFailed(
            _INIT_CHANGED.format(
                seed=record.recorded.get("seed"),
                actual=_short_hash(record.init_sha256),
                expected=_short_hash(golden.init_sha256),
                golden_seed=golden.recorded.get("seed"),
                golden_torch=golden.recorded.get("torch", "?"),
                **names,
            )
        )
    shape = _shape_difference(record, golden)
    if shape:
        raise CheckFailed(_SHAPE_CHANGED.format(what=shape, **names))
    comparisons = compare_records(record, golden, tolerances)
    failing = sorted((c for c in comparisons if c.fails), key=lambda c: (c.first_outside, record.columns.index(c.column)))
    if failing:
        raise CheckFailed(_envelope_message(record, golden, comparisons, failing, tolerances, path, own_key, update))


def _short_hash(digest: str) -> str:
    return f"{digest[:4]}...{digest[-2:]}"


def _shape_difference(record: GoldenRecord, golden: GoldenRecord) -> str:
    if record.columns != golden.columns:
        return f"columns {', '.join(record.columns[1:])} where the golden has {', '.join(golden.columns[1:])}"
    if record.steps != golden.steps:
        return f"{record.steps} steps where the golden has {golden.steps}"
    return ""


def _update_hint(curve: str, path: Path) -> str:
    if "::" in curve:
        return _UPDATE_PYTEST.format(nodeid=curve, path=path)
    return _UPDATE_PLAIN.format(path=path)


def _envelope_message(
    record: GoldenRecord,
    golden: GoldenRecord,
    comparisons: list[MetricComparison],
    failing: list[MetricComparison],
    tolerances: Mapping[str, Tolerance],
    path: Path,
    own_key: GoldenKey | None,
    update: str,
) -> str:
    recorded = golden.recorded
    source = (_NEAREST_SOURCE if own_key is not None else _GOLDEN_SOURCE).format(
        file=path if own_key is None else path.name,
        own=own_key.stem if own_key is not None else "",
        date=recorded.get("date", "?"),
        device=recorded.get("device_name", "?"),
        commit=recorded.get("git_commit") or "an unknown commit",
    )
    width = max(len(c.column) for c in failing)
    metrics = "\n".join(_metric_line(c, record.steps, width) for c in failing)
    differences = _recorded_differences(record.recorded, recorded)
    return _ENVELOPE.format(
        name=record.curve,
        golden=source,
        metrics=metrics,
        table=_table(comparisons, failing),
        cause=_cause(record, golden, comparisons, failing, tolerances),
        recorded=_RECORDED_DIFFERENTLY.format(differences=differences) if differences else "",
        update=update,
    )


def _metric_line(comparison: MetricComparison, steps: int, width: int) -> str:
    step = comparison.first_outside or 1
    return _METRIC_LINE.format(
        column=f"{comparison.column}:".ljust(width + 1),
        step=step,
        steps=steps,
        value=format_value(comparison.value(step)),
        golden=format_value(comparison.golden(step)),
        change=format_change(comparison.value(step), comparison.golden(step)),
        allowed=comparison.tolerance.describe(step),
        count=len(comparison.outside),
        budget=comparison.tolerance.budget,
    )


def _table(comparisons: list[MetricComparison], failing: list[MetricComparison]) -> str:
    first = failing[0]
    start = max(1, (first.first_outside or 1) - 2)
    stop = min(len(first.values), (first.first_outside or 1) + 2)
    shown = [c for c in comparisons if c.column == "loss"]
    shown += [c for c in failing if c not in shown][:2]
    header = "  step" + "".join(f"  {c.column:>12} {'golden':>12} {'diff':>9}" for c in shown)
    lines = [header]
    for step in range(start, stop + 1):
        cells = "".join(
            f"  {format_value(c.value(step)):>12} {format_value(c.golden(step)):>12} {format_change(c.value(step), c.golden(step)):>9}"
            for c in shown
        )
        mark = f"   <- first outside ({first.column})" if step == first.first_outside else ""
        lines.append(f"  {step:>4}{cells}{mark}")
    return "\n".join(lines)


def _cause(
    record: GoldenRecord,
    golden: GoldenRecord,
    comparisons: list[MetricComparison],
    failing: list[MetricComparison],
    tolerances: Mapping[str, Tolerance],
) -> str:
    by_column = {c.column: c for c in comparisons}
    loss = by_column.get("loss")
    if loss is not None and loss.first_outside == 1:
        return _CAUSE_FORWARD + _module_cause(record, golden, tolerances.get("loss", Exact()))
    for column, template in (("lr", _CAUSE_LR), ("loss_scale", _CAUSE_SCALE)):
        moved = by_column.get(column)
        if moved is not None and moved.first_outside is not None:
            step = moved.first_outside
            return template.format(step=step, value=format_value(moved.value(step)), golden=format_value(moved.golden(step)))
    step = min(c.first_outside for c in failing if c.first_outside is not None)
    grad = by_column.get("grad_norm")
    grad_moved = grad is not None and not grad.inside_at(step)
    loss_moved = loss is not None and not loss.inside_at(step)
    if grad_moved and not loss_moved:
        if step == 1:
            return _CAUSE_BACKWARD_FIRST
        gap = relative_change(loss.value(step), loss.golden(step)) if loss is not None else None
        loss_gap = f" to {abs(gap) * 100:.2g}%" if gap is not None and gap != 0 else (" exactly" if gap == 0 else "")
        return _CAUSE_BACKWARD.format(agree=_agreeing(step), step=step, loss_gap=loss_gap)
    if loss_moved and step > 1 and (grad is None or grad.inside_at(step - 1)):
        return _CAUSE_UPDATE.format(agree=_agreeing(step), before=step - 1, step=step)
    first = next(c for c in failing if c.first_outside == step)
    return _CAUSE_METRIC.format(step=step, column=first.column)


def _agreeing(step: int) -> str:
    return "Step 1 agrees" if step == 2 else f"Steps 1-{step - 1} agree"


def _module_cause(record: GoldenRecord, golden: GoldenRecord, tolerance: Tolerance) -> str:
    if not record.modules or not golden.modules:
        return ""
    for module, norm in record.modules.items():
        expected = golden.modules.get(module)
        if expected is not None and not within(norm, expected, tolerance, 1):
            return _CAUSE_MODULE.format(
                module=repr(module), value=format_value(norm), golden=format_value(expected), change=format_change(norm, expected)
            )
    return ""


def _recorded_differences(now: Mapping[str, Any], golden: Mapping[str, Any]) -> str:
    differences = []
    for name, label in _RECORDED_LABELS.items():
        if name in _NOT_CAUSES or name not in golden or name not in now:
            continue
        if now[name] != golden[name] and not _both_nan(now[name], golden[name]):
            differences.append(f"{label} {now[name]} (golden {golden[name]})")
    return "; ".join(differences)


def _both_nan(a: Any, b: Any) -> bool:
    return isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)
