"""``--add-noqa``: silence the current findings with ``# noqa: CODE`` comments.

Each finding's codes go at the end of the line it starts on; when that line ends inside a
multi-line string or with a ``\\`` continuation, they go on the last physical line of the
statement instead, which :mod:`torchcheck.lint.suppression` also reads for the finding. One
comment per line (codes merged and sorted), an existing ``# noqa: X`` is extended rather than
repeated, a bare ``# noqa`` is left alone, and running it twice changes nothing. The file's
bytes are edited line by line, so its encoding and line endings are kept.

Standard library only (``tokenize``), like the rest of the fast path.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass

from torchcheck.lint.suppression import ALL_CODES, Suppressions

# A code (TCK101, E501) or a rule name (loss-kept-with-graph); anything after is an explanation.
_CODE = r"(?:[A-Za-z]+[0-9]+|[a-z][a-z0-9]*(?:-[a-z0-9]+)+)"
_NOQA_CODES = re.compile(rf"#\s*noqa:\s*(?P<codes>{_CODE}(?:\s*,\s*{_CODE}|\s+{_CODE}(?![\w-]))*)", re.IGNORECASE)
# Python 3.12 splits an f-string into tokens; a line can end inside one without ending inside a token.
_FSTRING_START = getattr(tokenize, "FSTRING_START", None)
_FSTRING_END = getattr(tokenize, "FSTRING_END", None)
_NOT_CODE = (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)


@dataclass(frozen=True)
class _Layout:
    """Where each line of a file can take a comment, from its tokens."""

    comments: dict[int, str]  # row -> the comment text ending that line
    last_row_of_statement: dict[int, int]  # row -> last physical row of its logical line
    not_commentable: frozenset[int]  # rows whose end lies inside a string or after a ``\\``

    def row_for(self, row: int) -> int | None:
        """The row whose end can hold the comment for a finding on ``row``; None when there is none."""
        if row not in self.not_commentable:
            return row
        last = self.last_row_of_statement.get(row)
        return last if last is not None and last not in self.not_commentable else None


def _file_encoding(source: bytes) -> str:
    encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    return "utf-8" if encoding == "utf-8-sig" else encoding  # the BOM stays in the first line's bytes


def _layout(source: bytes) -> _Layout:
    comments: dict[int, str] = {}
    last_row: dict[int, int] = {}
    inside_tokens: set[int] = set()
    statement_start: int | None = None
    fstring_starts: list[int] = []
    for token in tokenize.tokenize(io.BytesIO(source).readline):
        if token.type in (tokenize.ENCODING, tokenize.ENDMARKER):
            continue
        if token.type == _FSTRING_START:
            fstring_starts.append(token.start[0])
        elif token.type == _FSTRING_END and fstring_starts:
            inside_tokens.update(range(fstring_starts.pop(), token.end[0]))
        if token.type == tokenize.COMMENT:
            comments[token.start[0]] = token.string
        if statement_start is None and token.type not in _NOT_CODE:
            statement_start = token.start[0]
        inside_tokens.update(range(token.start[0], token.end[0]))  # a token spanning lines: its rows end inside it
        if token.type == tokenize.NEWLINE and statement_start is not None:
            last_row.update(dict.fromkeys(range(statement_start, token.start[0] + 1), token.start[0]))
            statement_start = None
    return _Layout(comments, last_row, frozenset(inside_tokens) | _continued_rows(source, comments, last_row))


def _continued_rows(source: bytes, comments: dict[int, str], last_row: dict[int, int]) -> frozenset[int]:
    """Rows of a statement that end with a ``\\`` continuation (outside strings and comments)."""
    lines = source.split(b"\n")
    return frozenset(
        row
        for row, last in last_row.items()
        if row < last and row not in comments and lines[row - 1].rstrip(b"\r \t").endswith(b"\\")
    )


def _uncovered(codes: set[str], covered: frozenset[str]) -> set[str]:
    if ALL_CODES in covered:
        return set()
    return {code for code in codes if code not in covered and code.lower() not in covered}


def _with_codes(text: str, comment: str | None, codes: set[str]) -> str:
    """``text`` (one line, no line ending) with ``codes`` added to its noqa comment, or a new one."""
    if comment is not None and text.endswith(comment):
        match = _NOQA_CODES.search(comment)
        if match is not None:
            existing = [code for code in re.split(r"[\s,]+", match.group("codes")) if code]
            merged = ", ".join(sorted({*existing, *codes}))
            extended = comment[: match.start("codes")] + merged + comment[match.end("codes") :]
            return text[: len(text) - len(comment)] + extended
    return text.rstrip(" \t") + "  # noqa: " + ", ".join(sorted(codes))


def _edit_line(line: bytes, encoding: str, comment: str | None, codes: set[str]) -> bytes:
    body = line.rstrip(b"\r\n")
    ending = line[len(body) :]
    text = body.decode(encoding)
    return _with_codes(text, comment, codes).encode(encoding) + ending


def add_noqa(source: bytes, findings: Iterable[tuple[int, str]]) -> tuple[bytes, int]:
    """``source`` with a ``# noqa`` comment silencing each ``(row, code)`` finding (rows 1-based).

    Returns the new bytes and how many lines got a comment added or extended. A file that
    cannot be tokenized, or a row outside the file, is left as it is.
    """
    try:
        encoding = _file_encoding(source)
        layout = _layout(source)
        suppressions = Suppressions.parse(source.decode("utf-8-sig" if encoding == "utf-8" else encoding))
    except (SyntaxError, tokenize.TokenError, UnicodeDecodeError, LookupError):
        return source, 0
    lines = source.split(b"\n")
    row_count = len(lines) - (lines[-1] == b"")  # a final newline does not start another row
    wanted: dict[int, set[str]] = {}
    for row, code in findings:
        target = layout.row_for(row) if 0 < row <= row_count else None
        if target is not None:
            wanted.setdefault(target, set()).add(code)
    changed = 0
    for row in sorted(wanted):
        missing = _uncovered(wanted[row], suppressions.by_line.get(row, frozenset()))  # a bare noqa covers all
        if missing:
            lines[row - 1] = _edit_line(lines[row - 1], encoding, layout.comments.get(row), missing)
            changed += 1
    return b"\n".join(lines), changed
