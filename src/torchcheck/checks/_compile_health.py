"""What torch.compile did while a block ran: graph breaks, recompiles, eager fallbacks.

:class:`CompileWatch` resets Dynamo on entry and on exit (other code's compiled caches must
not count, and ours must not leak), sets the Dynamo configs that turn a silent eager
fallback into an error, and collects:

* graph breaks from the ``graph_breaks`` log artifact (reason, Dynamo's ``gbNNNN`` code and
  the user's source line), with ``counters["graph_break"]`` as the fallback when the log
  has a format this module cannot read;
* recompiles from Dynamo's compilation metrics (``recompile_reason``: the guard that
  failed), or from the error ``set_stance("fail_on_recompile")`` raises;
* the frame counters (``frames total > ok``: frames Dynamo left to run eagerly) and the
  number of graphs captured.

Everything here reads private Dynamo APIs; each read is guarded, and an older torch
without one gives fewer details, never an error.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import linecache
import logging
import os
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import torch
import torch._dynamo

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = [
    "CompileWatch",
    "GraphBreak",
    "HealthSummary",
    "Recompile",
    "describe_graph_breaks",
    "guard_advice",
    "is_recompile_error",
    "is_recompile_limit_error",
    "recompile_from_error",
    "relative_path",
]

_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_TORCHCHECK_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep

#: Dynamo configs set while watching (when this torch has them): a recompile-limit hit
#: raises instead of logging one warning and running eagerly from then on, and a backend
#: error is raised instead of swallowed.
_STRICT_CONFIG = {"fail_on_recompile_limit_hit": True, "suppress_errors": False}

_BREAK_LOCATION = re.compile(r"in user code at (?P<file>.+):(?P<line>\d+)\s*$", re.MULTILINE)
_GB_CODE = re.compile(r"/gb/(gb\d+)\.html")
_STACK_FRAME = re.compile(r'File "(?P<file>.+?)", line (?P<line>\d+), in (?P<function>.+)')
_BACKTICKED = re.compile(r"`([^`]+)`")
_RECOMPILE_ERROR = re.compile(
    r"filename: '(?P<file>.*?)', function name: '(?P<function>.*?)', line number: (?P<line>\d+)"
)
_RECOMPILE_ERROR_MARKER = "Detected recompile when torch.compile stance is 'fail_on_recompile'"
_IDENTIFIER = re.compile(r"^[\w.]+$")
#: The code Dynamo generates to resume a function after a graph break.
_RESUME_FUNCTION = re.compile(r"^torch_dynamo_resume_in_(?P<function>\w+?)_at_(?P<line>\d+)$")
#: How Dynamo names a value left on the stack at a graph break (a ``.item()`` result).
_STACK_VALUE = re.compile(r"^___stack\d+$")


@dataclass(frozen=True)
class GraphBreak:
    """One place where Dynamo split the compiled code."""

    reason: str  # Dynamo's graph-break type: "Unsupported Tensor.item() call with ..."
    code: str  # "gb0124", or "" when the log did not say
    label: str  # what broke, short: "Tensor.item()", "print()"
    filename: str
    lineno: int
    function: str  # "TinyNet.forward", or "" when unknown
    hint: str = ""
    inside: str = ""  # "torch/optim/optimizer.py:79" when the break is inside PyTorch's own code
    dynamo_location: str = ""  # where Dynamo says it broke, before mapping to the user's line

    @property
    def key(self) -> tuple[str, str]:
        """One break however often Dynamo logs it (again for each resumed or recompiled frame)."""
        return (self.reason, self.dynamo_location or f"{self.filename}:{self.lineno}")

    def render(self, number: int) -> str:
        where = f" in {self.function}" if self.function else ""
        lines = [f"  {number}. {self.label}{where} at {relative_path(self.filename)}:{self.lineno}"]
        source = linecache.getline(self.filename, self.lineno).strip() if self.lineno else ""
        if source:
            lines.append(f"         {source}")
        if self.inside:
            lines.append(f"     (the break itself is inside PyTorch, at {self.inside})")
        code = f" ({self.code})" if self.code else ""
        lines.append(f"     Dynamo: {self.reason}{code}")
        if self.hint:
            lines.append(f"     Hint: {self.hint}")
        return "\n".join(lines)


@dataclass(frozen=True)
class Recompile:
    """One recompilation, or a first compilation where none was allowed."""

    function: str  # the compiled code object's name: "forward"
    filename: str
    lineno: int
    guard_failures: tuple[str, ...]  # "0/0: self.calls == 0", each with its source when known

    def where(self) -> str:
        location = f" ({relative_path(self.filename)}:{self.lineno})" if self.filename else ""
        resumed = _RESUME_FUNCTION.match(self.function)
        if resumed:
            return f"the rest of '{resumed['function']}' after its graph break at line {resumed['line']}{location}"
        return f"'{self.function or 'a compiled function'}'{location}"


@dataclass
class HealthSummary:
    """The counters of one watched block."""

    graph_breaks: list[GraphBreak] = field(default_factory=list)
    frames_total: int = 0
    frames_ok: int = 0
    unique_graphs: int = 0
    eager_reasons: list[str] = field(default_factory=list)  # counters["unimplemented"]

    def fallback_note(self) -> str:
        """One line when Dynamo left frames to run eagerly; empty otherwise."""
        skipped = self.frames_total - self.frames_ok
        if skipped <= 0:
            return ""
        reasons = "; ".join(dict.fromkeys(self.eager_reasons)) or "no reason recorded"
        return (
            f"Dynamo left {skipped} of {self.frames_total} frames to run eagerly "
            f"(frames total > ok): {reasons}."
        )


class CompileWatch:
    """While active: Dynamo reset (on entry and exit), strict configs, and the graph-break
    log captured; :meth:`new_recompiles` and :meth:`summary` say what happened."""

    def __init__(self, *, fallback_random: bool = False) -> None:
        self._fallback_random = fallback_random
        self._stack = contextlib.ExitStack()
        self._messages: list[str] = []
        self._counters_before: dict[str, Counter[str]] = {}
        self._metrics_seen: set[int] = set()

    def __enter__(self) -> CompileWatch:
        try:
            torch._dynamo.reset()
            _reset_graph_break_duplicates()
            self._stack.callback(torch._dynamo.reset)
            self._stack.enter_context(_dynamo_config_patched())
            if self._fallback_random:
                self._stack.enter_context(_inductor_fallback_random())
            self._stack.enter_context(_captured_graph_break_log(self._messages))
            self._counters_before = _counters_snapshot()
            self._metrics_seen = {id(metric) for metric in _compilation_metrics()}
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self._stack.close()

    def new_recompiles(self) -> list[Recompile]:
        """Recompilations since the last call (or since entering)."""
        found = []
        last_function: dict[str, tuple[str, str, int]] = {}
        for metric in _compilation_metrics():
            frame = str(getattr(metric, "compile_id", "") or "").split("/")[0]
            if getattr(metric, "co_name", None):
                last_function[frame] = (metric.co_name, metric.co_filename or "", metric.co_firstlineno or 0)
            if id(metric) in self._metrics_seen:
                continue
            self._metrics_seen.add(id(metric))
            reason = getattr(metric, "recompile_reason", None)
            if reason:
                name, filename, lineno = last_function.get(frame, ("", "", 0))
                found.append(Recompile(name, filename, lineno, _guard_failures(reason)))
        return found

    def summary(self) -> HealthSummary:
        delta = _counters_delta(self._counters_before, _counters_snapshot())
        breaks = _graph_breaks_from_log(self._messages)
        if not breaks and delta.get("graph_break"):
            breaks = [_graph_break_from_counter(reason) for reason in delta["graph_break"]]
        frames = delta.get("frames", Counter())
        return HealthSummary(
            graph_breaks=breaks,
            frames_total=frames.get("total", 0),
            frames_ok=frames.get("ok", 0),
            unique_graphs=delta.get("stats", Counter()).get("unique_graphs", 0),
            eager_reasons=[reason.splitlines()[0] for reason in delta.get("unimplemented", ())],
        )


# ----------------------------------------------------------------- Dynamo state


def _reset_graph_break_duplicates() -> None:
    """Dynamo logs a repeated break without its stack; a fresh check wants every stack."""
    reset = getattr(torch._dynamo.utils, "reset_graph_break_dup_checker", None)
    if reset is not None:
        reset()


@contextlib.contextmanager
def _dynamo_config_patched() -> Iterator[None]:
    config = torch._dynamo.config
    settings = {name: value for name, value in _STRICT_CONFIG.items() if hasattr(config, name)}
    with config.patch(**settings):
        yield


@contextlib.contextmanager
def _inductor_fallback_random() -> Iterator[None]:
    """Inductor draws random numbers with its own kernels unless told to call ATen's:
    with ``fallback_random`` dropout draws the masks eager draws."""
    import torch._inductor.config as inductor_config

    with inductor_config.patch(fallback_random=True):
        yield


def _counters_snapshot() -> dict[str, Counter[str]]:
    counters = getattr(torch._dynamo.utils, "counters", {})
    return {name: Counter(values) for name, values in counters.items()}


def _counters_delta(before: dict[str, Counter[str]], after: dict[str, Counter[str]]) -> dict[str, Counter[str]]:
    """What was added to Dynamo's counters (which ``torch._dynamo.reset()`` keeps)."""
    return {name: values - before.get(name, Counter()) for name, values in after.items()}


def _compilation_metrics() -> list[Any]:
    get = getattr(torch._dynamo.utils, "get_compilation_metrics", None)
    return list(get()) if get is not None else []


@contextlib.contextmanager
def _captured_graph_break_log(messages: list[str]) -> Iterator[None]:
    """Collect the ``graph_breaks`` artifact messages without printing them, unless the
    user turned that log on (``TORCH_LOGS=graph_breaks``): then they still see it."""
    handler = _ListHandler(messages)
    loggers = [logging.getLogger(name) for name in _graph_break_logger_names()]
    saved = [(log, log.level, log.propagate) for log in loggers]
    for log in loggers:
        if not log.isEnabledFor(logging.DEBUG):
            log.setLevel(logging.DEBUG)
            log.propagate = False  # ours alone: Dynamo's handlers would print it
        log.addHandler(handler)
    try:
        yield
    finally:
        for log, level, propagate in saved:
            log.removeHandler(handler)
            log.setLevel(level)
            log.propagate = propagate


def _graph_break_logger_names() -> list[str]:
    try:
        registry = torch._logging._internal.log_registry
        return [name for name in registry.get_artifact_log_qnames() if name.endswith(".__graph_breaks")]
    except AttributeError:  # an older torch: the counters still count the breaks
        return []


class _ListHandler(logging.Handler):
    def __init__(self, messages: list[str]) -> None:
        super().__init__(level=logging.DEBUG)
        self._messages = messages

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self._messages.append(record.getMessage())
        except Exception:  # noqa: BLE001 - a log record we cannot format is not a finding
            pass


# ---------------------------------------------------------------- graph breaks


def _graph_breaks_from_log(messages: list[str]) -> list[GraphBreak]:
    found: dict[tuple[str, str], GraphBreak] = {}
    for message in messages:
        parsed = _graph_break_from_log(message)
        if parsed is not None:
            found.setdefault(parsed.key, parsed)
    return list(found.values())


def _graph_break_from_log(message: str) -> GraphBreak | None:
    location = _BREAK_LOCATION.search(message.split("\n", 1)[0])
    if location is None:
        return None
    filename, lineno = location["file"], int(location["line"])
    dynamo_location = f"{filename}:{lineno}"
    reason, explanation, hint = _reason_parts(message)
    inside = ""
    frames = _stack_frames(message)
    function = ""
    if _is_torch_file(filename):
        user = [frame for frame in frames if not _is_torch_file(frame[0]) and not frame[0].startswith("<frozen")]
        if user:
            inside = f"{relative_path(filename)}:{lineno}"
            filename, lineno, function = user[-1]
    function = _qualified_function(filename, lineno) or function or _function_from_frames(frames, filename, lineno)
    return GraphBreak(
        reason=reason,
        code=_code_of(message),
        label=_label(reason, explanation),
        filename=filename,
        lineno=lineno,
        function=function,
        hint=hint,
        inside=inside,
        dynamo_location=dynamo_location,
    )


def _graph_break_from_counter(text: str) -> GraphBreak:
    reason, explanation, hint = _reason_lines(text.splitlines())
    return GraphBreak(reason, _code_of(text), _label(reason, explanation), "", 0, "", hint)


def _reason_parts(message: str) -> tuple[str, str, str]:
    """Dynamo's graph-break type, its explanation and first hint, from a log message."""
    body = message.split("Graph Break Reason:", 1)[-1].split("User code traceback:", 1)[0]
    lines = body.splitlines()
    if lines and lines[0].strip().startswith("Encountered graph break when attempting to trace"):
        lines = lines[1:]
    return _reason_lines(lines)


def _reason_lines(lines: list[str]) -> tuple[str, str, str]:
    content = [line.strip() for line in lines if line.strip()]
    reason = content[0] if content else "unknown reason"
    explanation = next((line[len("Explanation:"):].strip() for line in content if line.startswith("Explanation:")), "")
    hint = next((line[len("Hint:"):].strip() for line in content if line.startswith("Hint:")), "")
    return reason, explanation, hint


def _code_of(text: str) -> str:
    found = _GB_CODE.search(text)
    return found.group(1) if found else ""


def _label(reason: str, explanation: str) -> str:
    """What broke, as short as the reader needs: the first name Dynamo quotes."""
    for text in (reason, explanation):
        quoted = _BACKTICKED.search(text)
        if quoted:
            name = quoted.group(1)
            return name + "()" if _IDENTIFIER.match(name) else name
    return "graph break"


def _stack_frames(message: str) -> list[tuple[str, int, str]]:
    if "User code traceback:" not in message:
        return []
    stack = message.split("User code traceback:", 1)[1]
    return [(m["file"], int(m["line"]), m["function"].strip()) for m in _STACK_FRAME.finditer(stack)]


def _function_from_frames(frames: list[tuple[str, int, str]], filename: str, lineno: int) -> str:
    for frame_file, frame_line, function in reversed(frames):
        if frame_file == filename and frame_line == lineno:
            return function
    return ""


def _is_torch_file(filename: str) -> bool:
    return os.path.abspath(filename).startswith((_TORCH_DIR, _TORCHCHECK_DIR))


@functools.lru_cache(maxsize=128)
def _functions_in(filename: str) -> tuple[tuple[int, int, str], ...]:
    """``(first line, last line, qualified name)`` of every function in a source file."""
    source = "".join(linecache.getlines(filename))
    if not source:
        return ()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return ()
    found: list[tuple[int, int, str]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    found.append((child.lineno, child.end_lineno or child.lineno, name))
                    visit(child, f"{name}.<locals>.")
                else:
                    visit(child, f"{name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return tuple(found)


def _qualified_function(filename: str, lineno: int) -> str:
    """``TinyNet.forward`` for a line inside that method; the innermost function wins."""
    containing = [entry for entry in _functions_in(filename) if entry[0] <= lineno <= entry[1]]
    if not containing:
        return ""
    return max(containing, key=lambda entry: entry[0])[2]


def relative_path(filename: str) -> str:
    """A path as the reader knows it: relative to the working directory when inside it."""
    if not filename or filename.startswith("<"):
        return filename
    if os.path.abspath(filename).startswith(_TORCH_DIR):
        return "torch/" + os.path.abspath(filename)[len(_TORCH_DIR):]
    try:
        relative = os.path.relpath(filename)
    except ValueError:  # another drive on Windows
        return filename
    return filename if relative.startswith("..") else relative


def describe_graph_breaks(breaks: list[GraphBreak]) -> str:
    return "\n".join(graph_break.render(number) for number, graph_break in enumerate(breaks, start=1))


# ------------------------------------------------------------------- recompiles


def is_recompile_error(error: BaseException) -> bool:
    return isinstance(error, RuntimeError) and _RECOMPILE_ERROR_MARKER in str(error)


def is_recompile_limit_error(error: BaseException) -> bool:
    """Dynamo's ``FailOnRecompileLimitHit`` (by name: its module moved between versions)."""
    current: BaseException | None = error
    while current is not None:
        if type(current).__name__ == "FailOnRecompileLimitHit":
            return True
        current = current.__cause__
    return False


def recompile_from_error(error: BaseException) -> Recompile:
    """The function and guard failures that ``set_stance("fail_on_recompile")`` names."""
    text = str(error)
    found = _RECOMPILE_ERROR.search(text)
    failures_text = text.split("guard failure(s):", 1)[1] if "guard failure(s):" in text else ""
    failures = tuple(
        line.strip()[2:] for line in failures_text.splitlines() if line.strip().startswith("- ")
    )
    if found is None:
        return Recompile("", "", 0, _guard_failures("\n".join(failures)))
    return Recompile(found["function"], found["file"], int(found["line"]), _guard_failures("\n".join(failures)))


def _guard_failures(reason: str) -> tuple[str, ...]:
    """Each failed guard as one line: ``0/0: scale == 1.0 (from `y = x * scale` at
    model.py:12)``, with Dynamo's hint when it gives one."""
    lines = reason.splitlines()
    failures = []
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not re.match(r"^\d+/\d+:", stripped):
            continue
        failures.append(_one_guard_failure(stripped, lines[index + 1 :]))
    if not failures and reason.strip():
        failures.append(reason.strip().splitlines()[0])
    return tuple(failures)


def _one_guard_failure(line: str, following: list[str]) -> str:
    guard, _, rest = line.partition("  # ")
    hint = ""
    if "(HINT:" in rest:
        rest, _, hint = rest.partition("(HINT:")
        hint = hint.rstrip(") ").strip()
    source = rest.split("  # ")[0].strip()
    location = ""
    for next_line in following:
        if re.match(r"^[-\s]*\d+/\d+:", next_line.strip()):
            break
        frame = _STACK_FRAME.search(next_line)
        if frame is not None:
            location = f"{relative_path(frame['file'])}:{frame['line']}"
    text = guard.strip()
    if source:
        text += f" (from `{source}`" + (f" at {location}" if location else "") + ")"
    if hint:
        text += f" [Dynamo: {hint}]"
    return text


def guard_advice(failures: tuple[str, ...]) -> str:
    """What a failed guard means for the user's code, when it is one of the usual ones."""
    text = failures[0] if failures else ""
    guard = text.split(" (from ", 1)[0].split(" [Dynamo:", 1)[0]
    expression = guard.split(":", 1)[-1].strip()
    name = re.split(r"\s*(?:==|!=|is not|is)\s*", expression)[0].strip() or expression
    if "duck sizing" in text:
        return (
            "Dynamo assumed two sizes are always equal because they were equal in the first call "
            "(duck sizing); make them differ in the first call, or set "
            "torch.fx.experimental._config.use_duck_shape = False."
        )
    if "size mismatch" in guard or "stride mismatch" in guard:
        return (
            "The compiled code was specialised on a tensor shape that changes; compile with "
            "dynamic=True, or mark that dimension dynamic (torch._dynamo.mark_dynamic)."
        )
    if re.search(r"\blr\b|\['lr'\]", name):
        return (
            "A Python learning rate on a compiled optimizer step recompiles whenever the "
            "scheduler changes it; give the optimizer a tensor lr (lr=torch.tensor(1e-3)), as "
            "PyTorch's docs on compiling the optimizer advise."
        )
    if "requires_grad" in guard:
        return "A parameter's requires_grad changed after compiling (freezing or unfreezing layers)."
    if name.endswith(".training"):
        return "A module switched between train and eval mode after compiling."
    if re.search(r"==\s*-?[\d.]+(e-?\d+)?\s*$|==\s*(True|False)\s*$", expression):
        if _STACK_VALUE.match(name):
            return (
                "The code after a graph break was specialised on the Python number the break "
                "hands over (a .item() or float() result), which changes every step; keep the "
                "value a tensor (torch.where instead of an if on it)."
            )
        return (
            f"The compiled code was specialised on a Python number that changes every step "
            f"({name}); pass it as a tensor, or mark it dynamic."
        )
    if "ID_MATCH" in guard or "check_obj_id" in guard or " is " in expression:
        return (
            f"The compiled code was specialised on one object ({name}) that is replaced between "
            "steps; keep one object and update it in place."
        )
    return "The guards of the compiled code no longer hold for the values this step passes."

