"""Findings, fixes and edits in the Language Server Protocol's terms.

torchcheck counts rows and columns from 1 in Unicode code points; LSP counts lines from 0
and characters in the negotiated encoding, UTF-16 code units unless the client offers
another. An emoji before a finding is one code point but two UTF-16 units, so every column
is converted through the text of its line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from lsprotocol import types

from torchcheck.lint.diagnostic import SYNTAX_ERROR_CODE, Diagnostic, Edit, Fix, Location

SOURCE = "torchcheck"
FIX_ALL_KIND = "source.fixAll.torchcheck"
UNSAFE_FIX_TITLE = "{message} (unsafe fix: review the change)"
NOQA_TITLE = "Ignore {code} on this line (# noqa: {code})"
FIX_ALL_TITLE = "Apply all safe torchcheck fixes"

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """The document's lines as LSP counts them (``\\n``, ``\\r\\n`` and ``\\r`` end a line)."""
    return _LINE_BREAK.split(text)


def _units(text: str, encoding: str) -> int:
    """How many characters ``text`` is in the client's position encoding."""
    if encoding == types.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8", errors="surrogatepass"))
    if encoding == types.PositionEncodingKind.Utf32:
        return len(text)
    return len(text.encode("utf-16-le", errors="surrogatepass")) // 2


def to_position(location: Location, lines: Sequence[str], encoding: str = types.PositionEncodingKind.Utf16) -> types.Position:
    """A 1-based code-point location as an LSP position (a row past the end stays past it)."""
    line = location.row - 1
    text = lines[line] if 0 <= line < len(lines) else ""
    return types.Position(line=max(line, 0), character=_units(text[: max(location.column - 1, 0)], encoding))


def to_range(start: Location, end: Location, lines: Sequence[str], encoding: str = types.PositionEncodingKind.Utf16) -> types.Range:
    return types.Range(start=to_position(start, lines, encoding), end=to_position(end, lines, encoding))


def to_lsp_diagnostic(
    diagnostic: Diagnostic,
    lines: Sequence[str],
    encoding: str = types.PositionEncodingKind.Utf16,
    related: tuple[str, int] | None = None,
) -> types.Diagnostic:
    """A finding with its code, a link to its rule's page and ``source: torchcheck``;
    ``related`` is the URI and 0-based line of the other place its message names."""
    href = diagnostic.url
    unparsable = diagnostic.code == SYNTAX_ERROR_CODE
    return types.Diagnostic(
        range=to_range(diagnostic.location, diagnostic.end_location, lines, encoding),
        message=diagnostic.message,
        severity=types.DiagnosticSeverity.Error if unparsable else types.DiagnosticSeverity.Warning,
        code=diagnostic.code,
        code_description=types.CodeDescription(href=href) if href is not None else None,
        source=SOURCE,
        related_information=_related_information(diagnostic, related),
    )


def _related_information(diagnostic: Diagnostic, related: tuple[str, int] | None) -> list[types.DiagnosticRelatedInformation] | None:
    place = diagnostic.related
    if place is None or related is None:
        return None
    uri, line = related
    start = types.Position(line=max(line, 0), character=0)
    message = place.message or place.text  # what is there; the editor shows where
    return [types.DiagnosticRelatedInformation(location=types.Location(uri=uri, range=types.Range(start=start, end=start)), message=message)]


def text_edits(edits: Sequence[Edit], lines: Sequence[str], encoding: str = types.PositionEncodingKind.Utf16) -> list[types.TextEdit]:
    return [types.TextEdit(range=to_range(edit.location, edit.end_location, lines, encoding), new_text=edit.content) for edit in edits]


def fix_title(fix: Fix) -> str:
    return fix.message if fix.applicability == "safe" else UNSAFE_FIX_TITLE.format(message=fix.message)


def _offset_to_position(text: str, offset: int, encoding: str) -> types.Position:
    before = text[:offset]
    starts = [match.end() for match in _LINE_BREAK.finditer(before)]
    line_start = starts[-1] if starts else 0
    return types.Position(line=len(starts), character=_units(before[line_start:], encoding))


def replacement_edit(old: str, new: str, encoding: str = types.PositionEncodingKind.Utf16) -> types.TextEdit:
    """One edit turning ``old`` into ``new``: only the span between their common prefix and
    suffix is replaced, so the editor keeps the cursor and folds everywhere else."""
    prefix = len(os.path.commonprefix([old, new]))
    limit = min(len(old), len(new)) - prefix
    suffix = min(len(os.path.commonprefix([old[::-1], new[::-1]])), limit)
    # Never put an end of the edit between the \r and \n of one line break.
    while 0 < prefix < len(old) and old[prefix - 1 : prefix + 1] == "\r\n":
        prefix -= 1
    while 0 < suffix and old[len(old) - suffix - 1 : len(old) - suffix + 1] == "\r\n":
        suffix -= 1
    start = _offset_to_position(old, prefix, encoding)
    end = _offset_to_position(old, len(old) - suffix, encoding)
    return types.TextEdit(range=types.Range(start=start, end=end), new_text=new[prefix : len(new) - suffix])
