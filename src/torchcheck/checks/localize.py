"""Where two runs that should agree start to differ: the module, then the operation.

Both runs are executed once under global module hooks (every ``nn.Module`` call records
its inputs and outputs) and, for ``level="op"``, a dispatch mode that records every aten
operation's outputs with the user's source line. Module calls are aligned by (qualified
name, call index); the first one to finish with a different output is where the
difference shows first: if its inputs agree it starts inside it, otherwise it was
inherited from outside any module. Inside that call, when both runs executed the same
operations, the first operation whose output differs is named; when they did not, the
report stops at the module and says so instead of guessing.

Two variants serve checks whose runs are not alike call for call. :func:`where_split_starts`
pairs a run over a whole batch with a run over its equal parts (gradient accumulation):
module call ``j`` of part ``i`` meets rows ``i`` of call ``j`` of the whole batch, and only
tensors whose first dimension is the batch are compared. :func:`where_refed_starts` calls
another implementation of each module (a compiled one) with the inputs the reference run
recorded, which separates a difference that starts in a module from one it inherits,
without instrumenting the other implementation.
"""

from __future__ import annotations

import contextlib
import dataclasses
import linecache
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

import torchcheck
from torchcheck.checks._compare import Mismatch, compare_structures, detach_to_cpu, first_mismatch, indent, iter_tensors

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = ["DivergenceReport", "localize_divergence"]

_LEVELS = ("module", "op")
_SKIPPED_DIRS = tuple(
    os.path.dirname(package.__file__) + os.sep for package in (torch, torchcheck) if package.__file__
)


@dataclass(frozen=True)
class DivergenceReport:
    """Where two runs start to differ. ``diverged`` is false when they agree;
    ``str(report)`` is the "Where it starts" section the equivalence checks print."""

    diverged: bool
    phase: str | None = None
    module: str | None = None
    call: int | None = None
    calls: int | None = None
    starts_inside: bool | None = None
    input_diff: str | None = None
    output_diff: str | None = None
    op: str | None = None
    source: str | None = None
    note: str | None = None

    def __str__(self) -> str:
        if not self.diverged:
            return "Where it starts: nowhere, the two runs agree."
        if self.module is None:
            return f"Where it starts: {self.note}"
        lines = [
            f"Where it starts ({self.phase}): module {self.module}, call {self.call} of {self.calls}: "
            + ("inputs agree, output differs, so it starts here." if self.starts_inside else "inputs already differ.")
        ]
        if self.input_diff:
            lines.append(indent(f"inputs:\n{indent(self.input_diff)}"))
        if self.output_diff:
            lines.append(indent(f"output:\n{indent(self.output_diff)}"))
        if self.op is not None:
            lines.append(f"First differing op: {self.op} at {self.source or 'an unknown line'}")
            code = _source_text(self.source)
            if code:
                lines.append(f"    {code}")
        if self.note:
            lines.append(self.note)
        return "\n".join(lines)


def localize_divergence(
    run_a: Callable[[], Any],
    run_b: Callable[[], Any],
    *,
    level: str = "op",
    rtol: float = 0.0,
    atol: float = 0.0,
) -> DivergenceReport:
    """Run ``run_a()`` and ``run_b()`` (zero-argument callables computing the same thing
    on their own objects) once each, and say where their forward passes start to differ:
    the first module call whose output differs (and whether its inputs already did) and,
    with ``level="op"`` and the same operations in both runs, the first differing aten
    operation with its source line. Bit-exact by default; ``rtol``/``atol`` loosen it.
    """
    if level not in _LEVELS:
        raise ValueError(f"level must be one of {', '.join(map(repr, _LEVELS))}, got {level!r}")
    first = _record(run_a, ops=level == "op")
    second = _record(run_b, ops=level == "op")
    return _localize(first, second, rtol, atol, level, _SameCalls())


_NOT_FOUND = (
    "Where it starts: not found: two more runs, recorded module by module, agreed "
    "(the difference does not occur on every run)."
)
_FAILED = "Where it starts: not found: localising raised {error}"


def where_it_starts(
    run_a: Callable[[], Any],
    run_b: Callable[[], Any],
    *,
    level: str,
    rtol: float = 0.0,
    atol: float = 0.0,
) -> str:
    """The "Where it starts" section an equivalence check appends to its failure:
    empty for ``level="off"``; never raises, so localising cannot hide the finding."""
    if level == "off":
        return ""
    try:
        report = localize_divergence(run_a, run_b, level=level, rtol=rtol, atol=atol)
    except Exception as error:  # localising must not hide the check's own finding
        return _FAILED.format(error=f"{type(error).__name__}: {error}")
    return str(report) if report.diverged else _NOT_FOUND


@dataclass(frozen=True)
class BatchSplit:
    """The second run computes the first run's batch of ``batch_size`` rows as ``parts``
    equal consecutive parts, one forward each."""

    parts: int
    batch_size: int
    part_name: str = "micro-batch"  # "shard" for data parallelism
    parts_name: str = "micro-batches"

    @property
    def rows(self) -> int:
        return self.batch_size // self.parts


_SPLIT_AGREES = (
    "Where it starts: not in the forward pass: every module's output on each {part_name} "
    "equals the same rows of the whole batch's forward ({count} module calls compared), so the "
    "difference arises after it: in the loss, the backward pass or the loop around them."
)
_SPLIT_NOT_TRIED = "Where it starts: not looked for: {why}"
_SPLIT_CALLS_DIFFER = (
    "module '{name}' runs {parts_count} times over the {parts} {parts_name} and {count} times "
    "over the whole batch, so its calls cannot be paired with rows of the batch."
)
_SPLIT_NO_BATCH_ROWS = (
    "no module returns a tensor whose first dimension is the batch, so no output can be "
    "compared with rows of the whole batch's."
)


def where_split_starts(
    run_whole: Callable[[], Any],
    run_parts: Callable[[], Any],
    split: BatchSplit,
    *,
    level: str,
    rtol: float | None = None,
    atol: float | None = None,
) -> str:
    """The "Where it starts" section for a run over a whole batch and a run over its
    parts: each part's module outputs are compared with the same rows of the whole
    batch's (tensors whose first dimension is not the batch are not comparable and are
    skipped). Empty for ``level="off"``; never raises."""
    if level == "off":
        return ""
    try:
        first = _record(run_whole, ops=level == "op")
        second = _record(run_parts, ops=level == "op")
        refusal = _split_refusal(first, second, split)
        if refusal:
            return _SPLIT_NOT_TRIED.format(why=refusal)
        report = _localize(first, second, rtol, atol, level, _SplitRows(split))
    except Exception as error:  # localising must not hide the check's own finding
        return _FAILED.format(error=f"{type(error).__name__}: {error}")
    if report.module is None:
        return _SPLIT_AGREES.format(count=len(second.calls), part_name=split.part_name)
    return str(report)


def _split_refusal(first: _Recording, second: _Recording, split: BatchSplit) -> str:
    counts = Counter(call.key[0] for call in first.calls)
    parts_counts = Counter(call.key[0] for call in second.calls)
    for name in [*counts, *parts_counts]:
        if parts_counts[name] != split.parts * counts[name]:
            return _SPLIT_CALLS_DIFFER.format(
                name=name or "(root)", parts_count=parts_counts[name], parts=split.parts, count=counts[name],
                parts_name=split.parts_name,
            )
    pairing = _SplitRows(split)
    if not any(pairing.has_batch_rows(call.output) for call in first.calls):
        return _SPLIT_NO_BATCH_ROWS
    return ""


_REFED_AGREES = (
    "Where it starts: not found at module level: every module ({count} calls), run {other} on "
    "the inputs {reference} gave it, returns {reference}'s output; the difference needs "
    "several modules {together}, or arises in the backward pass or the optimizer update."
)
_REFED_INSIDE = (
    "Every module inside it agrees when run alone on the same inputs: the difference needs "
    "them {together}."
)
_REFED_STOPPED = "Stopped after {seconds:.0f} s, {count} of {total} module calls re-run."
_NOT_REFED = object()  # what ``refeed`` returns for a module it cannot run alone


@dataclass(frozen=True)
class Refeed:
    """How :func:`where_refed_starts` runs the other implementation of a module.

    ``run(name, inputs)`` calls the module at qualified name ``name`` (``""``: the root)
    with ``inputs`` (``(args, kwargs)`` on the CPU, as recorded) and returns its output,
    or :data:`NOT_REFED` where it cannot. The words name the two sides in the report."""

    run: Callable[[str, Any], Any]
    reference: str = "the first run"
    other: str = "the second way"
    together: str = "together"
    note: str | None = None
    budget_s: float = 60.0


NOT_REFED = _NOT_REFED


def where_refed_starts(
    run: Callable[[], Any],
    refeed: Refeed,
    *,
    rtol: float | None = None,
    atol: float | None = None,
) -> str:
    """The "Where it starts" section from re-feeding: ``run()`` is recorded module by
    module, then every module call, in the order they finish (innermost first), is run
    the other way on the recorded inputs; the first whose output differs is where the
    difference starts, since its inputs are the same by construction. Never raises."""
    try:
        recording = _record(run, ops=False)
        report = _first_refed_difference(recording, refeed, rtol, atol)
    except Exception as error:  # localising must not hide the check's own finding
        return _FAILED.format(error=f"{type(error).__name__}: {error}")
    return report


def _first_refed_difference(recording: _Recording, refeed: Refeed, rtol: float | None, atol: float | None) -> str:
    started = time.monotonic()
    calls = recording.calls
    for done, call in enumerate(calls):
        if time.monotonic() - started > refeed.budget_s:
            stopped = _REFED_STOPPED.format(seconds=refeed.budget_s, count=done, total=len(calls))
            return f"Where it starts: not found. {stopped}"
        output = refeed.run(call.key[0], call.inputs)
        if output is _NOT_REFED:
            continue
        mismatch = compare_structures(detach_to_cpu(output), call.output, rtol=rtol, atol=atol).mismatch
        if mismatch is None:
            continue
        has_inner = any(other.key[0].startswith(f"{call.key[0]}.") or not call.key[0] for other in calls[:done])
        notes = [_REFED_INSIDE.format(together=refeed.together) if has_inner else "", refeed.note or ""]
        return str(
            DivergenceReport(
                diverged=True,
                phase="forward",
                module=f"'{call.key[0] or '(root)'}' ({call.class_name})",
                call=call.key[1],
                calls=sum(1 for c in calls if c.key[0] == call.key[0]),
                starts_inside=True,
                output_diff=mismatch.render(),
                note="\n".join(note for note in notes if note) or None,
            )
        )
    return _REFED_AGREES.format(
        count=len(calls), other=refeed.other, reference=refeed.reference, together=refeed.together
    )


# ------------------------------------------------------------------- recording


@dataclass(frozen=True)
class _ModuleCall:
    key: tuple[str, int]  # (qualified name, 1-based call index of that module)
    class_name: str
    inputs: Any
    output: Any


@dataclass(frozen=True)
class _Op:
    name: str
    outputs: Any
    source: str | None
    tags: tuple[Any, ...]
    open_calls: frozenset[tuple[str, int]]


@dataclass
class _Recording:
    calls: list[_ModuleCall] = field(default_factory=list)
    ops: list[_Op] = field(default_factory=list)
    result: Any = None


@dataclass(eq=False)
class _ModuleRecorder:
    """Global module hooks: names each called module in the tree of the outermost module
    it was called from, counts its calls, and keeps copies of its inputs and output."""

    recording: _Recording
    stack: list[tuple[str, int]] = field(default_factory=list)
    names: dict[int, str] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    pending_inputs: list[Any] = field(default_factory=list)

    def pre_hook(self, module: nn.Module, args: tuple[Any, ...]) -> None:
        if not self.stack:
            self.names.update({id(m): n for n, m in module.named_modules(remove_duplicate=False)})
        name = self.names.get(id(module)) or _root_label(module, self.names)
        self.counts[name] = self.counts.get(name, 0) + 1
        self.stack.append((name, self.counts[name]))
        self.pending_inputs.append(detach_to_cpu(args))

    def hook(self, module: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any], output: Any) -> None:
        if not self.stack:
            return
        key = self.stack.pop()
        inputs = (self.pending_inputs.pop(), detach_to_cpu(kwargs))
        self.recording.calls.append(_ModuleCall(key, type(module).__name__, inputs, detach_to_cpu(output)))

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        pre = nn.modules.module.register_module_forward_pre_hook(self.pre_hook)
        post = nn.modules.module.register_module_forward_hook(self.hook, with_kwargs=True, always_call=True)
        try:
            yield
        finally:
            pre.remove()
            post.remove()
            # torch forgets to drop the with_kwargs flag of a removed global hook; left there,
            # it makes every later torch.compile(module) warn about global hooks.
            getattr(nn.modules.module, "_global_forward_hooks_with_kwargs", {}).pop(post.id, None)


def _root_label(module: nn.Module, names: dict[int, str]) -> str:
    # A module outside the first root's tree (a loss module, say) roots its own tree.
    label = type(module).__name__
    names[id(module)] = label
    return label


@dataclass(eq=False)  # a mode is compared and hashed by identity
class _OpRecorder(TorchDispatchMode):
    recording: _Recording
    modules: _ModuleRecorder

    def __post_init__(self) -> None:
        super().__init__()

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: Any = None) -> Any:
        output = func(*args, **(kwargs or {}))
        self.recording.ops.append(
            _Op(
                name=str(func),
                outputs=detach_to_cpu(tree_flatten(output)[0]),
                source=_user_source_line(),
                tags=tuple(getattr(func, "tags", ())),
                open_calls=frozenset(self.modules.stack),
            )
        )
        return output


def _user_source_line() -> str | None:
    """``file:line`` of the innermost frame outside torch and torchcheck."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_SKIPPED_DIRS) and not filename.startswith("<"):
            return f"{filename}:{frame.f_lineno}"
        frame = frame.f_back
    return None


def _source_text(source: str | None) -> str:
    if not source:
        return ""
    filename, _, line = source.rpartition(":")
    return linecache.getline(filename, int(line)).strip() if line.isdigit() else ""


def _record(run: Callable[[], Any], *, ops: bool) -> _Recording:
    recording = _Recording()
    modules = _ModuleRecorder(recording)
    op_mode = _OpRecorder(recording, modules) if ops else contextlib.nullcontext()
    with modules.installed(), op_mode:
        recording.result = detach_to_cpu(run())
    return recording


# ------------------------------------------------------------------ comparison


class _SameCalls:
    """Both runs make the same calls: call (name, n) meets call (name, n)."""

    def counterparts(
        self, call: _ModuleCall, calls: int, by_key: dict[tuple[str, int], _ModuleCall]
    ) -> list[tuple[int, _ModuleCall | None]]:
        return [(0, by_key.get(call.key))]

    def mismatch(self, a: Any, b: Any, part: int, path: str, rtol: float | None, atol: float | None) -> Mismatch | None:
        return compare_structures(b, a, path=path, rtol=rtol, atol=atol).mismatch

    def where(self, part: int) -> str | None:
        return None


@dataclass(frozen=True)
class _SplitRows:
    """Call (name, n) of the whole batch meets call (name, i * calls + n) of the parts,
    each compared with its rows of the whole batch's tensors."""

    split: BatchSplit

    def counterparts(
        self, call: _ModuleCall, calls: int, by_key: dict[tuple[str, int], _ModuleCall]
    ) -> list[tuple[int, _ModuleCall | None]]:
        name, index = call.key
        return [(part, by_key.get((name, part * calls + index))) for part in range(self.split.parts)]

    def mismatch(self, a: Any, b: Any, part: int, path: str, rtol: float | None, atol: float | None) -> Mismatch | None:
        parts = dict(iter_tensors(b, path))
        start = part * self.split.rows
        for tensor_path, whole in iter_tensors(a, path):
            other = parts.get(tensor_path)
            if other is None or not self._pairs(whole, other):
                continue
            found = first_mismatch(other, whole[start : start + self.split.rows], path=tensor_path, rtol=rtol, atol=atol)
            if found is not None:
                return found
        return None

    def where(self, part: int) -> str:
        start = part * self.split.rows
        return (
            f"Compared: {self.split.part_name} {part + 1} of {self.split.parts} with rows {start}:{start + self.split.rows} "
            "of the whole batch's forward (only tensors whose first dimension is the batch)."
        )

    def has_batch_rows(self, value: Any) -> bool:
        return any(t.dim() > 0 and t.shape[0] == self.split.batch_size for _, t in iter_tensors(value))

    def _pairs(self, whole: torch.Tensor, part: torch.Tensor) -> bool:
        return (
            whole.dim() > 0
            and whole.shape[0] == self.split.batch_size
            and tuple(part.shape) == (self.split.rows, *whole.shape[1:])
        )


def _localize(
    first: _Recording, second: _Recording, rtol: float | None, atol: float | None, level: str, pairing: Any
) -> DivergenceReport:
    counts = Counter(call.key[0] for call in first.calls)
    by_key = {call.key: call for call in second.calls}
    for call in first.calls:
        for part, other in pairing.counterparts(call, counts[call.key[0]], by_key):
            if other is None:
                return _path_differs(call)
            output = pairing.mismatch(call.output, other.output, part, "output", rtol, atol)
            if output is None:
                continue
            inputs = pairing.mismatch(call.inputs, other.inputs, part, "inputs", rtol, atol)
            report = DivergenceReport(
                diverged=True,
                phase="forward",
                module=f"'{call.key[0] or '(root)'}' ({call.class_name})",
                call=call.key[1],
                calls=counts[call.key[0]],
                starts_inside=inputs is None,
                input_diff=None if inputs is None else f"{inputs.path}: {inputs.render()}",
                output_diff=output.render(),
                note=pairing.where(part),
            )
            if level == "op" and inputs is None:
                return _with_first_op(report, call.key, other.key, first, second, rtol, atol, pairing, part)
            return report
    if not isinstance(pairing, _SameCalls):
        return DivergenceReport(diverged=False)
    result = compare_structures(second.result, first.result, path="result", rtol=rtol, atol=atol).mismatch
    if result is None and len(first.calls) == len(second.calls):
        return DivergenceReport(diverged=False)
    return DivergenceReport(
        diverged=True,
        note="every module call agrees in the forward pass; the difference arises outside "
        "modules (backward, the optimizer update, or code between module calls)."
        + ("" if result is None else f"\n{indent(result.path + ': ' + result.render())}"),
    )


def _path_differs(call: _ModuleCall) -> DivergenceReport:
    return DivergenceReport(
        diverged=True,
        note=f"the runs call different modules: '{call.key[0] or '(root)'}' ({call.class_name}) "
        f"call {call.key[1]} happens in the first run only.",
    )


def _with_first_op(
    report: DivergenceReport,
    key: tuple[str, int],
    other_key: tuple[str, int],
    first: _Recording,
    second: _Recording,
    rtol: float | None,
    atol: float | None,
    pairing: Any,
    part: int,
) -> DivergenceReport:
    ops_a = [op for op in first.ops if key in op.open_calls]
    ops_b = [op for op in second.ops if other_key in op.open_calls]
    names_a, names_b = [op.name for op in ops_a], [op.name for op in ops_b]
    if names_a != names_b:
        return _with_note(report, _different_ops_note(names_a, names_b))
    for a, b in zip(ops_a, ops_b):
        if pairing.mismatch(a.outputs, b.outputs, part, "output", rtol, atol) is not None:
            random = torch.Tag.nondeterministic_seeded in a.tags
            note = "It draws random numbers: seed both runs the same way, or keep it out of one." if random else None
            return _with_note(_replace(report, op=a.name, source=a.source), note)
    return _with_note(report, "Op level: every operation inside it agrees; the difference comes from Python code.")


def _with_note(report: DivergenceReport, note: str | None) -> DivergenceReport:
    notes = [text for text in (report.note, note) if text]
    return _replace(report, note="\n".join(notes) or None)


def _different_ops_note(names_a: list[str], names_b: list[str]) -> str:
    index = next((i for i, (a, b) in enumerate(zip(names_a, names_b)) if a != b), min(len(names_a), len(names_b)))
    shown = slice(index, index + 5)
    return (
        "Op level not possible: the two runs execute different operations inside it "
        f"(from operation {index + 1}: first run {names_a[shown] or 'nothing more'}, "
        f"second run {names_b[shown] or 'nothing more'}), so they cannot be aligned."
    )


def _replace(report: DivergenceReport, **changes: Any) -> DivergenceReport:
    return dataclasses.replace(report, **changes)
