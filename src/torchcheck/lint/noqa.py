"""``# noqa`` comments: adding them (``--add-noqa``) and finding those that silence nothing.

``--add-noqa`` silences the current findings with ``# noqa: CODE`` comments.

Each finding's codes go at the end of the line it starts on; when that line ends inside a
multi-line string or with a ``\\`` continuation, they go on the last physical line of the
statement instead, which :mod:`torchcheck.lint.suppression` also reads for the finding. One
comment per line (codes merged and sorted), an existing ``# noqa: X`` is extended rather than
repeated, a bare ``# noqa`` is left alone, and running it twice changes nothing. The file's
bytes are edited line by line, so its encoding and line endings are kept.

The unused-noqa rule (TCK001) is computed here, once every other finding of a file has been
placed and the suppression reader has recorded which entries silenced one: a torchcheck code
or rule name that silenced nothing is reported, with a safe fix that removes it, or the whole
directive when nothing is left (other comment text stays). Codes of other tools (``E501``)
are theirs to judge and never reported.

Standard library only (``tokenize``), like the rest of the fast path.
"""

from __future__ import annotations

import functools
import io
import re
import tokenize
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from torchcheck.lint.catalogue import rule_infos
from torchcheck.lint.diagnostic import (
    SYNTAX_ERROR_CODE,
    Diagnostic,
    Edit,
    Fix,
    Location,
)
from torchcheck.lint.suppression import ALL_CODES, NoqaComment, Suppressions

UNUSED_NOQA_CODE = "TCK001"
UNUSED_NOQA_MESSAGE = "Unused `noqa` directive ({details})"
_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # as Python and libcst count lines
_EXPLANATION_LEAD = "-\u2013\u2014:;, \t"  # what joins codes to an explanation: `# noqa: X - why`

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


# ----------------------------------------------------------------------------- unused-noqa


@dataclass(frozen=True)
class _Entry:
    """One code or rule name written in a noqa directive."""

    written: str  # as in the file
    start: int  # offsets within the comment
    end: int

    @property
    def key(self) -> str:
        """How the suppression reader stores it: codes upper-case, names lower-case."""
        return self.written.upper() if self.written.upper().startswith("TCK") else self.written.lower()


def _entries(comment: str, match: re.Match[str]) -> list[_Entry]:
    offset = match.start("codes")
    return [_Entry(m.group(), offset + m.start(), offset + m.end()) for m in re.finditer(_CODE, match.group("codes"))]


@functools.cache
def _code_of_selector() -> dict[str, str]:
    """Every rule code and name (TCK000 included) -> its code."""
    known = {rule.code: rule.code for rule in rule_infos()} | {rule.name: rule.code for rule in rule_infos()}
    return {**known, SYNTAX_ERROR_CODE: SYNTAX_ERROR_CODE}


def _verdicts(entries: Sequence[_Entry], row: int, suppressions: Suppressions, enabled: Collection[str]) -> dict[_Entry, str]:
    """The torchcheck entries that silenced nothing, each with why: unused (its rule ran),
    non-enabled (its rule is off for this file) or unknown (no such rule)."""
    known = _code_of_selector()
    verdicts = {}
    for entry in entries:
        ours = entry.key.startswith("TCK") or entry.key in known
        if not ours or (row, entry.key) in suppressions.used:
            continue
        code = known.get(entry.key)
        verdicts[entry] = "unknown" if code is None else ("unused" if code in enabled else "non-enabled")
    return verdicts


def _message(verdicts: dict[_Entry, str]) -> str:
    groups = [
        f"{kind}: {', '.join(f'`{entry.written}`' for entry, verdict in verdicts.items() if verdict == kind)}"
        for kind in ("unused", "non-enabled", "unknown")
        if kind in verdicts.values()
    ]
    return UNUSED_NOQA_MESSAGE.format(details="; ".join(groups))


def _comment_without(comment: str, match: re.Match[str], entries: Sequence[_Entry], removed: Collection[_Entry]) -> str | None:
    """``comment`` less the ``removed`` entries; when none of its entries is left, less the
    whole directive (never a bare ``# noqa``, which would silence everything), keeping any
    other comment text. None when nothing of the comment is left."""
    kept = [entry.written for entry in entries if entry not in removed]
    if kept:
        separator = ", " if "," in match.group("codes") else " "
        return comment[: match.start("codes")] + separator.join(kept) + comment[match.end("codes") :]
    before = comment[: match.start()].rstrip()
    after = comment[match.end() :].strip()
    if after and not after.startswith("#"):
        after = f"# {after.lstrip(_EXPLANATION_LEAD)}" if after.lstrip(_EXPLANATION_LEAD) else ""
    return "  ".join(part for part in (before, after) if part) or None


def _removal(comment: NoqaComment, new_text: str | None, lines: Sequence[str]) -> Edit | None:
    """The edit that turns the comment into ``new_text``; None where the tokenizer's rows
    are not the file's lines (a lone carriage return), so no position can be trusted."""
    line = lines[comment.row - 1] if 0 < comment.row <= len(lines) else ""
    end = comment.column + len(comment.text)
    if line[comment.column : end] != comment.text:
        return None
    if new_text is not None:
        return Edit(new_text, Location(comment.row, comment.column + 1), Location(comment.row, end + 1))
    code = line[: comment.column].rstrip(" \t\f")
    if code or comment.row == len(lines):
        return Edit("", Location(comment.row, len(code) + 1), Location(comment.row, end + 1))
    return Edit("", Location(comment.row, 1), Location(comment.row + 1, 1))  # a line of its own goes


def unused_noqa(
    filename: str,
    suppressions: Suppressions,
    lines: Sequence[str],
    enabled: Collection[str],
    name: str,
    fix_title: str,
) -> list[Diagnostic]:
    """TCK001 findings for the noqa entries that silenced nothing, once ``suppressions``
    has seen every finding of the file; ``enabled``: the codes of the rules on for it."""
    found = []
    for comment in suppressions.noqa_comments:
        match = _NOQA_CODES.search(comment.text)
        if match is None or suppressions.suppresses(UNUSED_NOQA_CODE, name, comment.row, comment.row):
            continue
        entries = _entries(comment.text, match)
        verdicts = _verdicts(entries, comment.row, suppressions, enabled)
        if not verdicts:
            continue
        edit = _removal(comment, _comment_without(comment.text, match, entries, verdicts), lines)
        start = Location(comment.row, comment.column + match.start() + 1)
        end = Location(comment.row, comment.column + match.end() + 1)
        line = lines[comment.row - 1] if comment.row <= len(lines) else ""
        fix = Fix("safe", fix_title, (edit,)) if edit is not None else None
        found.append(Diagnostic(filename, UNUSED_NOQA_CODE, name, _message(verdicts), start, end, line, fix))
    return found


def _offsets(text: str) -> list[int]:
    """Where each line of ``text`` starts."""
    return [0, *(match.end() for match in _LINE_BREAK.finditer(text))]


def apply_edits(source: bytes, edits: Iterable[Edit]) -> bytes:
    """``source`` with the (non-overlapping) ``edits`` made, in its own encoding; rows and
    columns count lines and code points as the engine does. Overlapping edits after the
    first are left out."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    text = source.decode(encoding)
    starts = _offsets(text)

    def offset(location: Location) -> int:
        if location.row > len(starts):
            return len(text)
        return min(starts[location.row - 1] + location.column - 1, len(text))

    spans = sorted(((offset(edit.location), offset(edit.end_location), edit.content) for edit in edits), reverse=True)
    limit = len(text) + 1
    for start, end, content in spans:
        if end > limit:
            continue
        text = text[:start] + content + text[end:]
        limit = start
    return text.encode(encoding)
