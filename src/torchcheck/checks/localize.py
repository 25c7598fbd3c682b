"""Where two runs that should agree start to differ: the module, then the operation.

Both runs are executed once under global module hooks (every ``nn.Module`` call records
its inputs and outputs) and, for ``level="op"``, a dispatch mode that records every aten
operation's outputs with the user's source line. Module calls are aligned by (qualified
name, call index); the first one to finish with a different output is where the
difference shows first: if its inputs agree it starts inside it, otherwise it was
inherited from outside any module. Inside that call, when both runs executed the same
operations, the first operation whose output differs is named; when they did not, the
report stops at the module and says so instead of guessing.
"""

from __future__ import annotations

import contextlib
import dataclasses
import linecache
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

import torchcheck
from torchcheck.checks._compare import compare_structures, detach_to_cpu, indent

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
    return _localize(first, second, rtol, atol, level)


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


def _localize(first: _Recording, second: _Recording, rtol: float, atol: float, level: str) -> DivergenceReport:
    calls_b = {call.key: call for call in second.calls}
    for call in first.calls:
        other = calls_b.get(call.key)
        if other is None:
            return _path_differs(call)
        output = compare_structures(other.output, call.output, rtol=rtol, atol=atol).mismatch
        if output is None:
            continue
        inputs = compare_structures(other.inputs, call.inputs, path="inputs", rtol=rtol, atol=atol).mismatch
        report = DivergenceReport(
            diverged=True,
            phase="forward",
            module=f"'{call.key[0] or '(root)'}' ({call.class_name})",
            call=call.key[1],
            calls=sum(1 for c in first.calls if c.key[0] == call.key[0]),
            starts_inside=inputs is None,
            input_diff=None if inputs is None else f"{inputs.path}: {inputs.render()}",
            output_diff=output.render(),
        )
        if level == "op" and inputs is None:
            return _with_first_op(report, call.key, first, second, rtol, atol)
        return report
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
    first: _Recording,
    second: _Recording,
    rtol: float,
    atol: float,
) -> DivergenceReport:
    ops_a = [op for op in first.ops if key in op.open_calls]
    ops_b = [op for op in second.ops if key in op.open_calls]
    names_a, names_b = [op.name for op in ops_a], [op.name for op in ops_b]
    if names_a != names_b:
        return _replace(report, note=_different_ops_note(names_a, names_b))
    for a, b in zip(ops_a, ops_b):
        if compare_structures(b.outputs, a.outputs, rtol=rtol, atol=atol).mismatch is not None:
            random = torch.Tag.nondeterministic_seeded in a.tags
            note = "It draws random numbers: seed both runs the same way, or keep it out of one." if random else None
            return _replace(report, op=a.name, source=a.source, note=note)
    return _replace(report, note="Op level: every operation inside it agrees; the difference comes from Python code.")


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
