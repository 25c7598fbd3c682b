"""Unified diffs of raw file bytes that ``git apply`` and ``patch`` accept.

Lines are split on ``\\n`` only: a ``\\r`` stays inside its line, and characters that
``str.splitlines`` treats as line breaks (form feed, U+2028, ``\\x1c``...) are ordinary
characters to ``git`` and to Python's tokenizer. Working on bytes keeps a latin-1 file with a
coding cookie byte-exact.
"""

from __future__ import annotations

import difflib

NO_NEWLINE_MARKER = b"\\ No newline at end of file\n"

# Characters git quotes in a file name; a name with any of them is written as a C string.
_NEEDS_QUOTING = frozenset(b'"\\') | frozenset(range(0x20)) | {0x7F}
_ESCAPES = {ord("\\"): b"\\\\", ord('"'): b'\\"', ord("\t"): b"\\t", ord("\n"): b"\\n", ord("\r"): b"\\r"}


def split_lines(data: bytes) -> list[bytes]:
    """``data`` cut after each ``\\n``; the last line has no ``\\n`` when the file lacks a final newline."""
    lines = data.split(b"\n")
    last = lines.pop()
    result = [line + b"\n" for line in lines]
    if last:
        result.append(last)
    return result


def _quoted(name: bytes) -> bytes:
    """A name as git writes it in a patch header: C-quoted when it holds a quote, a backslash or a control byte."""
    if not any(byte in _NEEDS_QUOTING for byte in name):
        return name
    return b'"' + b"".join(_escaped(byte) for byte in name) + b'"'


def _escaped(byte: int) -> bytes:
    if byte in _ESCAPES:
        return _ESCAPES[byte]
    return b"\\%03o" % byte if byte in _NEEDS_QUOTING else bytes((byte,))


def _header_name(prefix: str, filename: str) -> bytes:
    return _quoted(f"{prefix}/{filename}".encode("utf-8", "surrogateescape"))


def _with_markers(lines: list[bytes]) -> bytes:
    """Diff lines joined, each line that lacks a final newline followed by git's marker."""
    out = []
    for line in lines:
        out.append(line)
        if not line.endswith(b"\n"):
            out.append(b"\n" + NO_NEWLINE_MARKER)
    return b"".join(out)


def unified_diff(filename: str, before: bytes, after: bytes, context: int = 3) -> bytes:
    """A patch turning ``before`` into ``after`` for ``filename`` (``--- a/NAME``, ``+++ b/NAME``).

    Empty when nothing changed. Patches for several files can be concatenated as they are.
    """
    if before == after:
        return b""
    hunks = list(
        difflib.diff_bytes(
            difflib.unified_diff,
            split_lines(before),
            split_lines(after),
            fromfile=b"",
            tofile=b"",
            n=context,
            lineterm=b"",
        )
    )
    # difflib's own headers cannot hold a quoted name; the first two lines are replaced.
    headers = [b"--- " + _header_name("a", filename) + b"\n", b"+++ " + _header_name("b", filename) + b"\n"]
    return b"".join(headers) + _with_markers([_terminated(line) for line in hunks[2:]])


def _terminated(line: bytes) -> bytes:
    """difflib ends ``@@`` lines without a newline under ``lineterm=b""``; content lines keep their own."""
    return line + b"\n" if line.startswith(b"@@") else line
