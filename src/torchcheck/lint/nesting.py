"""Deeply nested input: a cheap screen before libcst's native parser, and a deep stack for
libcst's recursive Python code.

libcst's native parser has no depth limit of its own for most expressions: parentheses
nested 1,500 deep, or a 10,000-long chain of unary ``-``, ``not``, attributes or calls,
overflow its stack and kill the process (SIGSEGV), which no ``except`` can catch; below that,
its time (and for nested lambdas its memory) grows with the square of the depth. So
:func:`measure` bounds, at C speed, how deep a file can nest (brackets, including the code of
f-string replacement fields, and runs of code between separators on each bracket level) and
how large libcst's tree of it would be; the engine asks CPython's own parser, which has
limits, about the few files it flags, and refuses files beyond the memory budget. Every entry
point (pool workers, one process, standard input, the editor) goes through this screen.

Valid code can still be deep enough for libcst's recursive codegen and visitors to exceed
Python's default recursion limit (a 600-term ``x + x + ...``), so the engine runs libcst on
a thread with a deep stack (:func:`on_deep_stack`) under a raised limit
(:func:`deep_recursion`).
"""

from __future__ import annotations

import io
import os
import queue
import re
import sys
import threading
import tokenize
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

MAX_BRACKET_DEPTH = 200  # CPython's own limit: "too many nested parentheses"
# libcst's parse takes time (and for some shapes memory) quadratic in how deep expressions
# nest: 1,000 levels take about a second, 3,000 (where CPython gives up) ten. A file that
# may nest deeper than this is checked by CPython's parser first (unlintable.python_verdict).
MAX_DEPTH_BOUND = 1_000
# libcst's tree takes 0.4 KB (code) to 1 KB (data literals) a byte of code: this is about
# 2 GB and half a minute of parsing, and fourteen times the code of the largest file of
# transformers (modeling_utils.py).
MAX_CODE_BYTES = 2 * 1024 * 1024

# What `python` starts with. Before Python 3.12 the parser's nesting limit derives from it,
# less the frames already in use where the parser is called.
PYTHON_RECURSION_LIMIT = 1_000

# Virtual memory: only the pages a deep file really uses are ever touched.
STACK_BYTES = 256 * 1024 * 1024
# libcst's codegen and transformers take two or three Python frames per tree level, and a
# frame costs well under 1 KiB of C stack, so this limit stays far inside STACK_BYTES.
RECURSION_LIMIT = 100_000

_ALL_BYTES = bytes(range(256))
_ONE_KIND_OF_BRACKET = _ALL_BYTES.maketrans(b"[{]}", b"(())")
_NOT_A_BRACKET = bytes(set(_ALL_BYTES) - set(b"()[]{}"))
_NOT_A_STATEMENT = frozenset({tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT})

# ----------------------------------------------------------------------------- code without strings

# Where code stops being code: a comment or a string (its prefix is looked up behind its
# quote: a search for these few bytes runs at C speed, one with the prefix would not).
_CODE_EVENT = re.compile(rb"""#|"{3}|'{3}|"|'""")
# Inside an f-string's replacement field: the same, plus brackets and a format spec's `:`.
_FIELD_EVENT = re.compile(rb"""#|"{3}|'{3}|"|'|[(\[{)\]}:]""")
_PREFIX_LETTERS = frozenset(b"rRbBuUfFtT")
_IDENTIFIER_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") | frozenset(range(128, 256))
_FORMAT_SPEC_EVENT = re.compile(rb"""(?P<open>\{)|(?P<close>\})|(?P<quote>["'\r\n])""")
_LINE_END = re.compile(rb"[\r\n]")
_PLAIN_STRING_REST = {
    b'"""': re.compile(rb'[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*(?:"""|\Z)', re.DOTALL),
    b"'''": re.compile(rb"[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*(?:'''|\Z)", re.DOTALL),
    b'"': re.compile(rb'[^"\\\r\n]*(?:\\(?:\r\n|.)[^"\\\r\n]*)*"?', re.DOTALL),
    b"'": re.compile(rb"[^'\\\r\n]*(?:\\(?:\r\n|.)[^'\\\r\n]*)*'?", re.DOTALL),
}


def _fstring_events(quote: bytes, raw: bool) -> re.Pattern[bytes]:
    """What matters in an f-string's literal text: escapes (a backslash before a brace
    escapes nothing: ``f"\\{x}"`` has a field), doubled braces, a field's brace, the closing
    quote, and for a one-line string the line end that leaves it unterminated."""
    named_escape = rb"" if raw else rb"\\N\{[^}\r\n]*\}|"
    line_end = rb"" if len(quote) == 3 else rb"|(?P<eol>\r\n|\r|\n)"
    return re.compile(
        rb"(?P<escape>" + named_escape + rb"\\(?:\r\n|[^{}]))|(?P<doubled>\{\{|\}\})|(?P<open>\{)|(?P<close>\})"
        + rb"|(?P<end>" + re.escape(quote) + rb")" + line_end,
        re.DOTALL,
    )


_FSTRING_EVENTS = {(quote, raw): _fstring_events(quote, raw) for quote in _PLAIN_STRING_REST for raw in (False, True)}


class _FString:
    """Inside an f-string's literal text."""

    def __init__(self, quote: bytes, raw: bool) -> None:
        self.quote, self.events = quote, _FSTRING_EVENTS[quote, raw]


class _Field:
    """Inside a replacement field: code, with its own bracket depth."""

    def __init__(self) -> None:
        self.depth = 0


class _FormatSpec:
    """Inside a field's format spec: text, which may hold fields of its own."""


_Frame = _FString | _Field | _FormatSpec


_STRING_OR_COMMENT = re.compile(
    rb"""
      \#[^\r\n]*
    | \"\"\"[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*(?:\"\"\"|\Z)
    | '''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*(?:'''|\Z)
    | "[^"\\\r\n]*(?:\\(?:\r\n|.)[^"\\\r\n]*)*"?
    | '[^'\\\r\n]*(?:\\(?:\r\n|.)[^'\\\r\n]*)*'?
    """,
    re.VERBOSE | re.DOTALL,
)


class _Disagreement(Exception):
    """An f-string does not end where a plain string with its quotes would (PEP 701)."""


def _code_only(source: bytes) -> bytes:
    """``source`` with every string literal reduced to one byte and every comment removed,
    so that brackets and commas inside them count for nothing, except the code inside
    f-strings (and t-strings): each replacement field stays, in brackets, since it nests
    like a bracket.

    One regex pass finds strings as if every string were plain, which is right unless a
    field holds the f-string's own quote (PEP 701: ``f"{d["k"]}"``); there the exact scan
    (:func:`_scanned`) reads the whole file.
    """

    def reduced(match: re.Match[bytes]) -> bytes:
        text, start = match[0], match.start()
        if text[0] == ord("#"):
            return b""
        if start == 0 or source[start - 1] not in _PREFIX_LETTERS:
            return b"s"  # most strings: no prefix
        prefix = _prefix(source, start)
        if (b"f" not in prefix and b"t" not in prefix) or b"{" not in text:
            return b"s"
        code, ended_here = _scanned(prefix + text)
        if not ended_here:
            raise _Disagreement
        return code[len(prefix) :]

    try:
        return _STRING_OR_COMMENT.sub(reduced, source)
    except _Disagreement:
        return _scanned(source)[0]


def _scanned(source: bytes) -> tuple[bytes, bool]:
    """What :func:`_code_only` returns, read event by event, and whether every string and
    field ends by the end of ``source``. f-strings nested in f-strings are followed on an
    explicit stack, not by recursion."""
    out: list[bytes] = []
    stack: list[_Frame] = []  # innermost last; empty at the top level of the code
    pos, end = 0, len(source)
    while pos < end:
        frame = stack[-1] if stack else None
        if frame is None or isinstance(frame, _Field):
            match = (_CODE_EVENT if frame is None else _FIELD_EVENT).search(source, pos)
            if match is None:
                out.append(source[pos:])
                break
            out.append(source[pos : match.start()])
            pos = _after_code_event(match, frame, source, stack, out)
        elif isinstance(frame, _FString):
            pos = _in_fstring(frame, source, pos, stack, out)
        else:
            pos = _in_format_spec(source, pos, stack, out)
    return b"".join(out), not stack


def _prefix(source: bytes, quote_at: int) -> bytes:
    """The string prefix before the quote at ``quote_at``: up to two letters, with no
    identifier running into them (``elif"x"`` is ``elif`` and a plain string)."""
    start = quote_at
    while start > max(quote_at - 2, 0) and source[start - 1] in _PREFIX_LETTERS:
        start -= 1
    if start > 0 and source[start - 1] in _IDENTIFIER_BYTES:
        return b""
    return source[start:quote_at].lower()


def _after_code_event(match: re.Match[bytes], field: _Field | None, source: bytes, stack: list[_Frame], out: list[bytes]) -> int:
    token, pos = match[0], match.end()
    first = token[0]
    if first == ord("#"):
        line_end = _LINE_END.search(source, pos)
        return len(source) if line_end is None else line_end.start()
    if first in b"\"'":
        prefix = _prefix(source, match.start())
        out.append(b"s")
        if b"f" in prefix or b"t" in prefix:
            stack.append(_FString(token, b"r" in prefix))
            return pos
        return _PLAIN_STRING_REST[token].match(source, pos).end()  # type: ignore[union-attr]
    assert field is not None  # brackets and colons are events only inside a field
    if first in b"([{":
        field.depth += 1
    elif token == b"}" and field.depth == 0:
        stack.pop()
        out.append(b")")
        return pos
    elif first in b")]}":
        field.depth = max(field.depth - 1, 0)
    elif field.depth == 0:  # the `:` that starts a format spec
        stack.append(_FormatSpec())
        return pos
    out.append(token)
    return pos


def _in_fstring(fstring: _FString, source: bytes, pos: int, stack: list[_Frame], out: list[bytes]) -> int:
    match = fstring.events.search(source, pos)
    if match is None:  # unterminated: the rest of the file is its text
        return len(source)
    if match.lastgroup == "open":
        stack.append(_Field())
        out.append(b"(")
    elif match.lastgroup == "end":
        stack.pop()
    elif match.lastgroup == "eol":  # unterminated: Python stops reading it here too
        stack.pop()
        return match.start()
    return match.end()


def _in_format_spec(source: bytes, pos: int, stack: list[_Frame], out: list[bytes]) -> int:
    match = _FORMAT_SPEC_EVENT.search(source, pos)
    if match is None:
        return len(source)
    if match.lastgroup == "open":
        stack.append(_Field())
        out.append(b"(")
        return match.end()
    quote = next(frame.quote for frame in reversed(stack) if isinstance(frame, _FString))
    closes = match.lastgroup == "close"
    if not (closes or source.startswith(quote, match.start()) or (match[0] in b"\r\n" and len(quote) == 1)):
        return match.end()  # a quote in a spec is a fill character
    stack.pop()  # the spec
    stack.pop()  # its field
    out.append(b")")
    return match.end() if closes else match.start()  # the f-string's own frame reads its end


# ----------------------------------------------------------------------------- measures


def bracket_depth(code: bytes, limit: int = MAX_BRACKET_DEPTH) -> int:
    """How deep brackets of any kind nest in ``code``, counted up to ``limit + 1``: each
    pass removes the innermost pairs, so real code needs about ten passes."""
    brackets = code.translate(_ONE_KIND_OF_BRACKET, _NOT_A_BRACKET)
    depth = 0
    while depth <= limit:
        inner_removed = brackets.replace(b"()", b"")
        if len(inner_removed) == len(brackets):
            break
        brackets, depth = inner_removed, depth + 1
    return depth


_CONTINUATION = re.compile(rb"\\(?:\r\n|\r|\n)")
_INNERMOST_GROUP = re.compile(rb"\(([^()]*)\)")
# A lambda's parameters, whose commas separate nothing: `lambda a, b: lambda a, b: ...`
# nests a level a lambda. Innermost first, so that a lambda in a default is done first.
# (No `\\b` before `lambda`: it would stop the fast search for the word; a name ending in
# "lambda" taken for one only makes a run longer.)
_LAMBDA_HEADER = re.compile(rb"lambda\b((?:(?!lambda\b)[^:()])*):")
_SEPARATOR = b","
# Separators and layout: in brackets a line break is layout, at the top level it ends a statement.
_IN_BRACKETS = (_ALL_BYTES.maketrans(b";=", b",,"), b" \t\f\r\n")
_AT_TOP_LEVEL = (_ALL_BYTES.maketrans(b";=\r\n", b",,,,"), b" \t\f")


def _run_length(text: bytes, separators_and_layout: tuple[bytes, bytes]) -> int:
    table, layout = separators_and_layout
    return max(map(len, text.translate(table, layout).split(_SEPARATOR)))


def _without_lambda_headers(code: bytes) -> bytes:
    """Each lambda's keyword as one byte and its parameters without their separators
    (parameters that hold brackets wait until the brackets are collapsed)."""
    if b"lambda" not in code:
        return code
    for _ in range(MAX_BRACKET_DEPTH):
        code, found = _LAMBDA_HEADER.subn(lambda header: b"L" + header[1].translate(None, b",="), code)
        if not found:
            break
    return code


def longest_runs(code: bytes) -> list[int]:
    """The longest run of each height of bracketed group (innermost groups first, the top
    level last): the most bytes between two commas, semicolons, ``=`` or statements, each
    group inside counted as one byte, a lambda's keyword and parameters as one (their
    commas separate nothing), layout ignored.

    An expression nests at most a level a byte of such a run: a chain of operators, of calls
    (``f(1,)(1,)...``, whose commas are a level down) or of lambdas nested N deep needs a
    run of N. The groups on a path into the code have different heights, so no expression
    nests deeper than the sum of the runs (and a level a group)."""
    flat = _CONTINUATION.sub(b" ", code).translate(_ONE_KIND_OF_BRACKET)
    has_lambdas = b"lambda" in flat
    runs = []
    for _ in range(MAX_BRACKET_DEPTH + 2):
        if has_lambdas:
            flat = _without_lambda_headers(flat)
        innermost = _INNERMOST_GROUP.findall(flat)
        if not innermost:
            break
        runs.append(_run_length(_SEPARATOR.join(innermost), _IN_BRACKETS))
        flat = _INNERMOST_GROUP.sub(b"o", flat)
    top_level = _without_lambda_headers(flat.translate(None, b"()"))  # an unmatched bracket joins its neighbours
    runs.append(_run_length(top_level, _AT_TOP_LEVEL))
    return runs


@dataclass(frozen=True)
class Shape:
    """What the cheap screen measures of a file, at C speed (a few passes over its bytes)."""

    code_bytes: int  # strings and comments left out: what libcst's tree grows with
    bracket_depth: int
    depth_bound: int  # no expression nests deeper (see longest_runs)

    @property
    def may_be_too_deep(self) -> bool:
        """Whether libcst could crash on the file, or take time or memory quadratic in a depth
        beyond what it handles well: CPython's parser is asked about such a file first."""
        return self.bracket_depth > MAX_BRACKET_DEPTH or self.depth_bound > MAX_DEPTH_BOUND

    @property
    def too_large(self) -> bool:
        """Whether libcst's tree of the file would outgrow the memory budget."""
        return self.code_bytes > MAX_CODE_BYTES


def measure(source: bytes) -> Shape:
    code = _code_only(source)
    depth = bracket_depth(code)
    if depth > MAX_BRACKET_DEPTH:
        return Shape(len(code), depth, 0)
    runs = longest_runs(code)
    return Shape(len(code), depth, sum(runs) + len(runs))


def may_be_too_deep(source: bytes) -> bool:
    """Whether ``source`` might nest deeper than libcst can take. Cheap and conservative:
    real code is rarely flagged, and a flagged file is only checked more closely."""
    return measure(source).may_be_too_deep


def longest_statement_line(text: str) -> int:
    """The line where the statement with the most tokens starts: where a file that is too
    deeply nested for Python is deep. 1 when the file does not tokenize."""
    best_row, best_count, count, start = 1, 0, 0, 1
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if count == 0 and token.type in _NOT_A_STATEMENT:
                continue
            if count == 0:
                start = token.start[0]
            count += 1
            if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                if count > best_count:
                    best_row, best_count = start, count
                count = 0
    except (tokenize.TokenError, SyntaxError):
        pass
    return best_row


_limit_lock = threading.Lock()
_limit_users = 0
_limit_before = 0


@contextmanager
def deep_recursion() -> Iterator[None]:
    """Raise Python's recursion limit to ``RECURSION_LIMIT`` while in use, on a stack from
    :func:`on_deep_stack`. The limit is process-wide, so concurrent users share one raise
    and the last one out restores the old value."""
    global _limit_users, _limit_before
    with _limit_lock:
        if _limit_users == 0:
            _limit_before = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_limit_before, RECURSION_LIMIT))
        _limit_users += 1
    try:
        yield
    finally:
        with _limit_lock:
            _limit_users -= 1
            if _limit_users == 0:
                sys.setrecursionlimit(_limit_before)


def _frames_in_use() -> int:
    frame, count = sys._getframe(1), 1
    while frame is not None:
        frame, count = frame.f_back, count + 1
    return count


@contextmanager
def as_at_top_level() -> Iterator[None]:
    """Python's default recursion limit plus the frames in use here, so that CPython's parser
    (called within) nests as deep as it does compiling a script: its verdict must not
    depend on how deep in torchcheck's own calls it is asked. Where another thread has the
    limit raised (:func:`deep_recursion`) it is left as it is; other threads wait until the
    block is over before raising it."""
    with _limit_lock:
        if _limit_users > 0:
            yield
            return
        before = sys.getrecursionlimit()
        sys.setrecursionlimit(PYTHON_RECURSION_LIMIT + _frames_in_use() + 2)  # +2: the frames of `with` and the call
        try:
            yield
        finally:
            sys.setrecursionlimit(before)


class _DeepStackWorker:
    """One long-lived thread with a ``STACK_BYTES`` stack that runs the calls handed to it.

    Long-lived because a fresh thread per file costs a fresh malloc arena: about 1,200 page
    faults, 7% of the time to lint a small file.
    """

    def __init__(self) -> None:
        self._calls: queue.SimpleQueue[tuple[Callable[[], object], _Outcome]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()

    def _serve(self) -> None:
        while True:
            call, outcome = self._calls.get()
            outcome.settle(call)

    def _started(self) -> bool:
        with self._start_lock:
            if self._thread is not None:
                return True
            previous = threading.stack_size()  # process-wide: set only around this one start
            try:
                threading.stack_size(STACK_BYTES)
                thread = threading.Thread(target=self._serve, name="torchcheck-deep-stack", daemon=True)
                thread.start()
            except (RuntimeError, ValueError, MemoryError):  # no room for such a stack here
                return False
            finally:
                threading.stack_size(previous)
            self._thread = thread
            return True

    def run(self, call: Callable[[], T]) -> T:
        if threading.current_thread() is self._thread or not self._started():
            return call()
        outcome = _Outcome()
        self._calls.put((call, outcome))
        return outcome.result()  # type: ignore[return-value]


class _Outcome:
    """The result or exception of one call, handed from the worker to the caller."""

    def __init__(self) -> None:
        self._done = threading.Event()
        self._value: object = None
        self._error: BaseException | None = None

    def settle(self, call: Callable[[], object]) -> None:
        try:
            self._value = call()
        except BaseException as error:  # noqa: BLE001 - re-raised in the calling thread
            self._error = error
        self._done.set()

    def result(self) -> object:
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._value


_worker = _DeepStackWorker()


def _forget_the_parents_worker() -> None:
    global _worker
    _worker = _DeepStackWorker()  # a forked child has no copy of the parent's threads


os.register_at_fork(after_in_child=_forget_the_parents_worker)


def on_deep_stack(function: Callable[..., T], *args: object) -> T:
    """``function(*args)`` on a thread with a ``STACK_BYTES`` stack (for native code too);
    its result is returned and its exception re-raised here. Where no such thread can be
    started, the call runs on the current thread."""
    return _worker.run(lambda: function(*args))
