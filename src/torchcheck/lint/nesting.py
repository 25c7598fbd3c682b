"""Deeply nested input: a cheap screen before libcst's native parser, and a deep stack for
libcst's recursive Python code.

libcst's native parser has no depth limit of its own for most expressions: parentheses
nested 1,500 deep, or a 10,000-long chain of unary ``-``, ``not``, attributes or calls,
overflow its stack and kill the process (SIGSEGV), which no ``except`` can catch. CPython
rejects those files too ("too many nested parentheses", or a recursion error at about
3,000 levels), so :func:`may_be_too_deep` looks at the raw bytes for the two things such
files need, a deep bracket nesting or a long run of code with no comma, semicolon or ``=``
in it, and the engine asks CPython's own parser about the few files it flags.

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
from typing import TypeVar

T = TypeVar("T")

MAX_BRACKET_DEPTH = 200  # CPython's own limit: "too many nested parentheses"
# CPython gives up at about 3,000 levels of nesting and a unary chain spends one byte a
# level, so any chain CPython rejects makes a longer run than this; real code rarely does.
MAX_UNBROKEN_RUN = 2_000

# Virtual memory: only the pages a deep file really uses are ever touched.
STACK_BYTES = 256 * 1024 * 1024
# libcst's codegen and transformers take two or three Python frames per tree level, and a
# frame costs well under 1 KiB of C stack, so this limit stays far inside STACK_BYTES.
RECURSION_LIMIT = 100_000

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
_ALL_BYTES = bytes(range(256))
_ONE_KIND_OF_BRACKET = _ALL_BYTES.maketrans(b"[{]}", b"(())")
_NOT_A_BRACKET = bytes(set(_ALL_BYTES) - set(b"()[]{}"))
_SEPARATORS_AS_COMMAS = _ALL_BYTES.maketrans(b";=", b",,")
_LAYOUT = b" \t\f\r\n\\"
_NOT_A_STATEMENT = frozenset({tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT})


def _code_only(source: bytes) -> bytes:
    """``source`` with every string literal reduced to one byte and every comment removed,
    so that brackets and commas inside them count for nothing."""
    return _STRING_OR_COMMENT.sub(lambda match: b"" if match[0].startswith(b"#") else b"s", source)


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


def longest_unbroken_run(code: bytes) -> int:
    """The most bytes of ``code`` between two commas, semicolons or ``=``, layout ignored:
    a chain of operators nested N deep needs N of them, on one line or on many."""
    return max(map(len, code.translate(_SEPARATORS_AS_COMMAS, _LAYOUT).split(b",")))


def may_be_too_deep(source: bytes) -> bool:
    """Whether ``source`` might nest deeper than libcst's native parser can survive. Cheap
    (a few passes over the bytes at C speed) and conservative: real code is almost never
    flagged, and a flagged file is only checked more closely."""
    code = _code_only(source)
    return bracket_depth(code) > MAX_BRACKET_DEPTH or longest_unbroken_run(code) > MAX_UNBROKEN_RUN


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
