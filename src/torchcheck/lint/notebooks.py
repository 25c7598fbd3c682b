"""Jupyter notebooks: read the code cells, lint them as one module, map findings back, write fixes.

The code cells are joined in order, each starting on a new row, so that names flow between
cells as they do at run time. IPython syntax is neutralised without moving any row: a line
magic (``%time``, ``!pip``, ``x = !ls``) or a help line (``model?``) becomes ``pass`` at the
same indentation, and every line of a cell magic (``%%bash``) becomes blank.

Cells are numbered from 1 in the order Jupyter shows them, markdown cells included (ruff's
numbering), and rows and columns are counted within the cell.

A fix is written back by changing only the ``source`` of the cells it touched; a fix that
would change lines of two cells at once, or an IPython line, is neither offered nor made
(so ``lint`` and ``--fix`` agree on what is fixable). The rest of
the file is kept byte for byte: the notebook is re-serialised only when serialising the file
as read reproduces it exactly (JupyterLab's and nbformat's layout, or plain two- or
four-space JSON), and the result must read back as a notebook; otherwise nothing is written.

Standard library only, so a run served from the cache stays fast; the linter does not
depend on nbformat.
"""

from __future__ import annotations

import bisect
import difflib
import json
import re
from collections import Counter
from collections.abc import Collection, Hashable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from torchcheck.lint import noqa
from torchcheck.lint.diagnostic import (
    SYNTAX_ERROR_CODE,
    SYNTAX_ERROR_NAME,
    Diagnostic,
    Edit,
    Fix,
    Location,
)

if TYPE_CHECKING:
    from torchcheck.lint.engine import FileResult
    from torchcheck.lint.rule import Rule
    from torchcheck.lint.settings import LintSettings

NOTEBOOK_SUFFIX = ".ipynb"
NOT_JSON = "not a notebook: the file is not valid JSON ({error})"
NOT_A_NOTEBOOK = "not a Jupyter notebook: {reason}"
OLD_FORMAT = "notebook format {version} is not supported; save it again with Jupyter (format 4)"
TOO_DEEP = "not a notebook: its JSON is nested too deeply to read"
NOT_UNICODE = "not a Jupyter notebook: cell {number} holds text that is not valid Unicode ({error})"

_CELL_TYPES = frozenset({"code", "markdown", "raw"})
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_CELL_MAGIC = re.compile(r"\s*%%")
# An assignment's target starts with a non-space: the leading `\s*` and the target's `\s`
# could otherwise share a run of spaces in every way (quadratic on a blank line).
_LINE_MAGIC = re.compile(r"\s*(?:[%!]|[\w.,\[\]][\w.,\[\]\s]*=\s*[%!](?!=))")
_HELP = re.compile(r"\s*(?:\?{1,2}[\w.*]+|[\w.*\[\]()]+\?{1,2})\s*$")
_INDENT = re.compile(r"[ \t]*")
# Layouts the notebook is re-serialised in; JupyterLab and nbformat write the first.
_LAYOUTS = ((1, False), (2, False), (4, False), (1, True), (2, True), (4, True))


def is_notebook(filename: str) -> bool:
    return filename.endswith(NOTEBOOK_SUFFIX)


def _problem(filename: str, message: str) -> Diagnostic:
    start = Location(1, 1)
    return Diagnostic(filename, SYNTAX_ERROR_CODE, SYNTAX_ERROR_NAME, message, start, start)


# ----------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class CodeCell:
    """One code cell: its place in the notebook and its lines as saved and as linted."""

    position: int  # 0-based index into the notebook's ``cells``
    text: str  # the source as saved
    raw_lines: tuple[str, ...]  # ``text`` split into rows, line breaks kept
    lines: tuple[str, ...]  # the rows as linted: IPython syntax neutralised, each ending in a line break
    neutralised: frozenset[int]  # indices into ``lines`` that differ from ``raw_lines``

    @property
    def number(self) -> int:
        """The cell's number as users count: from 1, every kind of cell counted."""
        return self.position + 1


@dataclass(frozen=True)
class Notebook:
    document: dict[str, Any]
    cells: tuple[CodeCell, ...]
    is_python: bool

    @property
    def python_source(self) -> str:
        return "".join(line for cell in self.cells for line in cell.lines)

    def index(self) -> CellIndex:
        return CellIndex.of(self.cells)


def _cell_text(source: Any) -> str | None:
    if isinstance(source, str):
        return source
    if isinstance(source, list) and all(isinstance(line, str) for line in source):
        return "".join(source)
    return None


def _structure_problem(document: Any) -> str | None:
    """Why ``document`` is not a version 4 notebook, by nbformat's rules for what we read; None if it is."""
    if not isinstance(document, dict):
        return NOT_A_NOTEBOOK.format(reason="the JSON is not an object")
    version = document.get("nbformat")
    if ("cells" not in document and "worksheets" in document) or (isinstance(version, int) and version < 4):
        return OLD_FORMAT.format(version=version)
    if version != 4:
        return NOT_A_NOTEBOOK.format(reason="no \"nbformat\": 4 key")
    if not isinstance(document.get("metadata"), dict):
        return NOT_A_NOTEBOOK.format(reason="no \"metadata\" object")
    cells = document.get("cells")
    if not isinstance(cells, list):
        return NOT_A_NOTEBOOK.format(reason="no \"cells\" list")
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") not in _CELL_TYPES:
            return NOT_A_NOTEBOOK.format(reason=f"cell {number} has no known \"cell_type\"")
        text = _cell_text(cell.get("source"))
        if text is None:
            return NOT_A_NOTEBOOK.format(reason=f"cell {number} has no \"source\" text")
        try:
            text.encode()
        except UnicodeEncodeError as error:  # JSON can spell a lone surrogate: "\ud800"
            return NOT_UNICODE.format(number=number, error=error.reason)
    return None


def _language(metadata: dict[str, Any]) -> str | None:
    for key, field in (("language_info", "name"), ("kernelspec", "language")):
        section = metadata.get(key)
        if isinstance(section, dict) and isinstance(section.get(field), str):
            return section[field].lower()
    return None


def parse(source: bytes) -> Notebook | str:
    """The notebook in ``source``, or a message saying why it is not one."""
    try:
        document = json.loads(source)
    except RecursionError:
        return TOO_DEEP
    except ValueError as error:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return NOT_JSON.format(error=error)
    reason = _structure_problem(document)
    if reason is not None:
        return reason
    cells = tuple(
        _code_cell(position, _cell_text(cell["source"]) or "")
        for position, cell in enumerate(document["cells"])
        if cell["cell_type"] == "code"
    )
    return Notebook(document, cells, _language(document["metadata"]) in (None, "python"))


# ----------------------------------------------------------------------------- IPython syntax


@dataclass
class _Scanner:
    """Just enough of Python's tokenizer to tell whether a line starts a statement."""

    depth: int = 0
    quote: str | None = None
    continued: bool = False

    @property
    def at_statement_start(self) -> bool:
        return self.depth == 0 and self.quote is None and not self.continued

    def feed(self, line: str) -> None:
        index = 0
        while index < len(line):
            if self.quote is not None:
                if line[index] == "\\":
                    index += 2
                elif line.startswith(self.quote, index):
                    index, self.quote = index + len(self.quote), None
                else:
                    index += 1
                continue
            char = line[index]
            if char == "#":
                break
            if char in "\"'":
                self.quote = line[index : index + 3] if line[index : index + 3] in ('"""', "'''") else char
                index += len(self.quote)
                continue
            if char in "([{":
                self.depth += 1
            elif char in ")]}":
                self.depth = max(0, self.depth - 1)
            index += 1
        body = line.rstrip("\r\n")
        self.continued = body.endswith("\\") and (self.quote is None or len(self.quote) == 1)
        if self.quote is not None and len(self.quote) == 1 and not self.continued:
            self.quote = None  # an unterminated one-line string: Python reports it, we move on


def _line_break(line: str) -> str:
    body = line.rstrip("\r\n")
    return line[len(body) :] or "\n"


def _is_ipython_line(line: str) -> bool:
    return _LINE_MAGIC.match(line) is not None or _HELP.match(line) is not None


def _neutralised_lines(raw_lines: Sequence[str]) -> list[str]:
    """Rows as Python can parse them: each IPython line becomes ``pass`` at its indentation,
    and the lines a backslash continues it onto (`!pip install \\`) become blank."""
    first = next((line for line in raw_lines if line.strip()), "")
    if _CELL_MAGIC.match(first):
        return [_line_break(line) for line in raw_lines]
    scanner = _Scanner()
    lines = []
    in_magic = False  # a magic continued with a backslash (`!pip install \`) goes on here
    for line in raw_lines:
        if in_magic:
            in_magic = line.rstrip("\r\n").endswith("\\")
            lines.append(_line_break(line))
            continue
        if scanner.at_statement_start and _is_ipython_line(line):
            in_magic = line.rstrip("\r\n").endswith("\\")
            line = _INDENT.match(line).group() + "pass" + _line_break(line)  # type: ignore[union-attr]
        elif not line.endswith(("\n", "\r")):
            line += "\n"
        scanner.feed(line)
        lines.append(line)
    return lines


def _code_cell(position: int, text: str) -> CodeCell:
    raw_lines = tuple(_LINE.findall(text))
    lines = tuple(_neutralised_lines(raw_lines))
    neutralised = frozenset(i for i, (raw, line) in enumerate(zip(raw_lines, lines)) if raw.rstrip("\r\n") != line.rstrip("\r\n"))
    return CodeCell(position, text, raw_lines, lines, neutralised)


# ----------------------------------------------------------------------------- positions


@dataclass(frozen=True)
class CellIndex:
    """Maps a row of the joined cells to a cell number and a row within that cell."""

    cells: tuple[int, ...]  # joined row - 1 -> cell number
    first_rows: tuple[int, ...]  # joined row - 1 -> the joined row where that cell starts

    @classmethod
    def of(cls, cells: Iterable[CodeCell]) -> CellIndex:
        numbers: list[int] = []
        first_rows: list[int] = []
        for cell in cells:
            start = len(numbers) + 1
            numbers.extend([cell.number] * len(cell.lines))
            first_rows.extend([start] * len(cell.lines))
        return cls(tuple(numbers), tuple(first_rows))

    def cell_of(self, row: int) -> int | None:
        if not self.cells:
            return None
        return self.cells[min(max(row, 1), len(self.cells)) - 1]

    def location(self, location: Location, anchor_row: int) -> Location:
        """``location`` counted within the cell that holds ``anchor_row``."""
        if not self.first_rows:
            return location
        first = self.first_rows[min(max(anchor_row, 1), len(self.first_rows)) - 1]
        return Location(max(location.row - first + 1, 1), location.column)

    @property
    def starts(self) -> tuple[tuple[int, int], ...]:
        """(first joined row, cell number) of each code cell: ``ExportSummary.cells``."""
        return tuple(dict.fromkeys(zip(self.first_rows, self.cells)))

    def diagnostic(self, diagnostic: Diagnostic) -> Diagnostic:
        anchor = diagnostic.location.row
        return self._related(
            replace(
                diagnostic,
                cell=self.cell_of(anchor),
                location=self.location(diagnostic.location, anchor),
                end_location=self.location(diagnostic.end_location, anchor),
                fix=None if diagnostic.fix is None else self._fix(diagnostic.fix, anchor),
            )
        )

    def _related(self, diagnostic: Diagnostic) -> Diagnostic:
        """A place in this notebook that the message names (decided while the cells were
        linted as one module) named by its cell, as the finding's own location is."""
        related = diagnostic.related
        if related is None or related.cell is not None or related.filename != diagnostic.filename:
            return diagnostic
        in_cell = replace(related, cell=self.cell_of(related.row), row=self.location(Location(related.row, 1), related.row).row)
        message = diagnostic.message.replace(f" at {related.text}", f" at {in_cell.text}")
        return replace(diagnostic, message=message, related=in_cell)

    def _fix(self, fix: Fix, anchor: int) -> Fix:
        edits = tuple(
            Edit(edit.content, self.location(edit.location, anchor), self.location(edit.end_location, anchor))
            for edit in fix.edits
        )
        return replace(fix, edits=edits)


def _mapped(result: FileResult, index: CellIndex, **changes: Any) -> FileResult:
    """``result`` with every position counted within its cell."""
    changes["diagnostics"] = tuple(index.diagnostic(d) for d in result.diagnostics)
    if getattr(result, "exports", None) is not None:  # lines of the summary name their cell in messages
        changes["exports"] = replace(result.exports, cells=index.starts)
    deferred = getattr(result, "deferred", ())  # findings that wait for the project index, where the engine has them
    if deferred:
        changes["deferred"] = tuple(replace(finding, diagnostic=index.diagnostic(finding.diagnostic)) for finding in deferred)
    return replace(result, **changes)


# ----------------------------------------------------------------------------- writing back


def _layout(document: dict[str, Any], original: bytes) -> tuple[int, bool, str] | None:
    """The ``json.dumps`` settings and ending that reproduce ``original`` exactly, if any."""
    text = original.decode("utf-8", "replace").replace("\r\n", "\n")
    ending = text[len(text.rstrip("\n")) :]
    for indent, ascii_only in _LAYOUTS:
        if json.dumps(document, indent=indent, ensure_ascii=ascii_only) + ending == text:
            return indent, ascii_only, ending
    return None


def _source_value(old: Any, text: str) -> str | list[str]:
    """``text`` stored the way the cell stored its source: one string or a list of lines."""
    return text if isinstance(old, str) else text.splitlines(keepends=True)


def with_sources(notebook: Notebook, original: bytes, sources: dict[int, str]) -> bytes | None:
    """``original`` with the cells at the given positions holding new source text, every
    other byte kept; None when the file's layout cannot be reproduced or the result would
    not read back as a notebook."""
    layout = _layout(notebook.document, original)
    if layout is None:
        return None
    indent, ascii_only, ending = layout
    cells = list(notebook.document["cells"])
    for position, text in sources.items():
        cells[position] = {**cells[position], "source": _source_value(cells[position]["source"], text)}
    document = {**notebook.document, "cells": cells}
    written = (json.dumps(document, indent=indent, ensure_ascii=ascii_only) + ending).encode()
    return written if isinstance(parse(written), Notebook) else None


def _owners(cells: Sequence[CodeCell]) -> tuple[list[str], list[str], list[int], set[int]]:
    linted, raw, owner, neutralised = [], [], [], set()
    for number, cell in enumerate(cells):
        for row, line in enumerate(cell.lines):
            if row in cell.neutralised:
                neutralised.add(len(linted))
            linted.append(line)
            raw.append(cell.raw_lines[row])
            owner.append(number)
    return linted, raw, owner, neutralised


def _numbered(lines: Sequence[Hashable], repeated: Collection[Hashable]) -> list[tuple[Hashable, int]]:
    """Each line, and for the lines in ``repeated``, which copy it is. Every magic reads
    ``pass``: hundreds of equal lines make difflib quadratic, numbered they are unique. A fix
    never adds or removes them (one that does is refused)."""
    seen: dict[Hashable, int] = {}
    numbered = []
    for line in lines:
        if line in repeated:
            seen[line] = seen.get(line, 0) + 1
        numbered.append((line, seen.get(line, 0)))
    return numbered


@dataclass(frozen=True)
class _Row:
    """One row of the joined cells, perhaps fixed: the cell it belongs to (an index into
    ``Notebook.cells``) and, for a row a fix left as linted, the row as saved."""

    cell: int
    saved: str | None
    neutralised: bool = False


def _rows_of(notebook: Notebook, lines: Sequence[str]) -> list[_Row] | None:
    """The cell of each of ``lines`` (the joined cells, perhaps fixed); None when a change
    touches a neutralised IPython line."""
    linted, raw, owner, neutralised = _owners(notebook.cells)
    placeholders = {linted[row] for row in neutralised}
    rows: list[_Row] = []
    for tag, start, end, new_start, new_end in line_opcodes(_numbered(linted, placeholders), _numbered(lines, placeholders)):
        if tag == "equal":
            rows.extend(_Row(owner[row], raw[row], row in neutralised) for row in range(start, end))
            continue
        if neutralised.intersection(range(start, end)):
            return None
        cells = _cells_of_new_lines(owner[start:end], linted[start:end], lines[new_start:new_end], owner[max(start - 1, 0)])
        if cells is None:
            return None
        rows.extend(_Row(cell, None) for cell in cells)
    return rows


Opcode = tuple[str, int, int, int, int]

# Above this many pairs of lines, difflib (quadratic in equal lines) aligns only what lies
# between lines that occur once on each side.
_MAX_PAIRS_TO_DIFF = 1_000_000


def line_opcodes(old: Sequence[Hashable], new: Sequence[Hashable]) -> list[Opcode]:
    """difflib's opcodes from ``old`` to ``new``, in time about linear in their length: the
    common first and last lines are set aside, and a long middle is cut at the lines that
    occur exactly once in each (patience diff) before difflib aligns each piece."""
    return _middle_opcodes(old, new, 0, len(old), 0, len(new))


def _middle_opcodes(old: Sequence[Hashable], new: Sequence[Hashable], start: int, end: int, new_start: int, new_end: int) -> list[Opcode]:
    shared = min(end - start, new_end - new_start)
    head = 0
    while head < shared and old[start + head] == new[new_start + head]:
        head += 1
    tail = 0
    while tail < shared - head and old[end - 1 - tail] == new[new_end - 1 - tail]:
        tail += 1
    opcodes: list[Opcode] = [("equal", start, start + head, new_start, new_start + head)] if head else []
    opcodes += _inner_opcodes(old, new, start + head, end - tail, new_start + head, new_end - tail)
    if tail:
        opcodes.append(("equal", end - tail, end, new_end - tail, new_end))
    return opcodes


def _inner_opcodes(old: Sequence[Hashable], new: Sequence[Hashable], start: int, end: int, new_start: int, new_end: int) -> list[Opcode]:
    """The opcodes of a stretch whose first and last lines differ."""
    if start == end and new_start == new_end:
        return []
    if start == end:
        return [("insert", start, end, new_start, new_end)]
    if new_start == new_end:
        return [("delete", start, end, new_start, new_end)]
    small = (end - start) * (new_end - new_start) <= _MAX_PAIRS_TO_DIFF
    anchors = [] if small else _unique_anchors(old, new, start, end, new_start, new_end)
    if not small and not anchors and _same_repeated_lines(old[start:end], new[new_start:new_end]):
        # Each repeated line occurs as often on both sides (fixes edited lines in place): its
        # k-th copy on one side is its k-th copy on the other.
        old_part, new_part = old[start:end], new[new_start:new_end]
        every_line = set(old_part)
        anchors = _unique_anchors(_numbered(old_part, every_line), _numbered(new_part, every_line), 0, end - start, 0, new_end - new_start)
        anchors = [(row + start, new_row + new_start) for row, new_row in anchors]
    if not anchors:
        matcher = difflib.SequenceMatcher(None, old[start:end], new[new_start:new_end], autojunk=False)
        return [(tag, a + start, b + start, c + new_start, d + new_start) for tag, a, b, c, d in matcher.get_opcodes()]
    opcodes: list[Opcode] = []
    row, new_row = start, new_start
    for anchor, new_anchor in anchors:
        opcodes += _middle_opcodes(old, new, row, anchor, new_row, new_anchor)
        opcodes.append(("equal", anchor, anchor + 1, new_anchor, new_anchor + 1))
        row, new_row = anchor + 1, new_anchor + 1
    return opcodes + _middle_opcodes(old, new, row, end, new_row, new_end)


def _same_repeated_lines(old: Sequence[Hashable], new: Sequence[Hashable]) -> bool:
    old_counts, new_counts = Counter(old), Counter(new)
    repeated = {line for line, count in old_counts.items() if count > 1}
    repeated |= {line for line, count in new_counts.items() if count > 1}
    return all(old_counts[line] == new_counts[line] for line in repeated)


def _unique_anchors(old: Sequence[Hashable], new: Sequence[Hashable], start: int, end: int, new_start: int, new_end: int) -> list[tuple[int, int]]:
    """The longest run, in order on both sides, of lines that occur exactly once in each."""
    def once(lines: Sequence[Hashable], begin: int, stop: int) -> dict[Hashable, int]:
        counts = Counter(lines[begin:stop])
        return {lines[row]: row for row in range(begin, stop) if counts[lines[row]] == 1}

    in_new = once(new, new_start, new_end)
    pairs = [(row, in_new[line]) for line, row in once(old, start, end).items() if line in in_new]
    pairs.sort()
    return _longest_increasing(pairs)


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of ``pairs`` (sorted by their first item) whose second items increase."""
    tails: list[int] = []
    ends: list[int] = []
    previous: list[int] = []
    for index, (_, second) in enumerate(pairs):
        at = bisect.bisect_left(tails, second)
        if at == len(tails):
            tails.append(second)
            ends.append(index)
        else:
            tails[at] = second
            ends[at] = index
        previous.append(ends[at - 1] if at else -1)
    chain = []
    index = ends[-1] if ends else -1
    while index >= 0:
        chain.append(pairs[index])
        index = previous[index]
    return chain[::-1]


# Above this many lines, a change next to a cell boundary is split line for line or not at all.
_MAX_LINES_TO_ALIGN = 200


def _cells_of_new_lines(owners: Sequence[int], old: Sequence[str], new: Sequence[str], before: int) -> list[int] | None:
    """The cell of each line of ``new``, which replaced the rows ``old`` of the cells ``owners``.

    Within one cell, all go to it; lines that only were added go to the cell of the row
    ``before`` them. Changes in two cells that the diff ran together (fixed lines on both
    sides of a cell boundary) are split line for line when they keep the number of lines,
    else where each cell's old text best matches the new lines.
    """
    if not old or len(set(owners)) == 1:
        return [owners[0] if owners else before] * len(new)
    if len(old) == len(new):
        return list(owners)
    if len(old) + len(new) > _MAX_LINES_TO_ALIGN:
        return None
    segments: list[tuple[int, str]] = []
    for cell, line in zip(owners, old):
        if segments and segments[-1][0] == cell:
            segments[-1] = (cell, segments[-1][1] + line)
        else:
            segments.append((cell, line))
    cells: list[int] = []
    for index, (cell, text) in enumerate(segments[:-1]):
        rest = "".join(later for _, later in segments[index + 1 :])
        begin = len(cells)
        cut = max(
            range(begin, len(new) + 1),
            key=lambda at: _likeness(text, new[begin:at]) + _likeness(rest, new[at:]),
        )
        cells.extend([cell] * (cut - begin))
    cells.extend([segments[-1][0]] * (len(new) - len(cells)))
    return cells


def _likeness(text: str, lines: Sequence[str]) -> float:
    return difflib.SequenceMatcher(None, text, "".join(lines), autojunk=False).ratio()


def split_fixed(notebook: Notebook, fixed: str) -> dict[int, str] | None:
    """The new source of each code cell a fix of the joined cells changed, by position in
    the notebook; None when a change touches a neutralised IPython line."""
    new_lines = _LINE.findall(fixed)
    rows = _rows_of(notebook, new_lines)
    if rows is None:
        return None
    pieces: list[list[str]] = [[] for _ in notebook.cells]
    for row, line in zip(rows, new_lines):
        pieces[row.cell].append(line if row.saved is None else row.saved)
    changed = {}
    for cell, lines in zip(notebook.cells, pieces):
        text = "".join(lines)
        if not cell.text.endswith(("\n", "\r")) and text.endswith("\n"):
            text = text[:-1]  # the joined cells gave the last row a line break the cell did not have
        if text != cell.text:
            changed[cell.position] = text
    return changed


class _FitsCells:
    """Whether a fix of the joined cells can be written back: each of its edits changes the
    lines of one cell only, and no IPython line. Asked of the joined cells as linted and,
    during ``--fix``, of each intermediate result."""

    def __init__(self, notebook: Notebook) -> None:
        self._notebook = notebook
        self._source: bytes | None = None
        self._lines: list[str] = []
        self._rows: list[_Row] | None = None

    def __call__(self, source: bytes, fix: Fix) -> bool:
        if source != self._source:
            self._source, self._lines = source, _LINE.findall(source.decode())
            self._rows = _rows_of(self._notebook, self._lines)
        rows = self._rows
        return rows is not None and all(self._edit_fits(rows, edit) for edit in fix.edits)

    def _edit_fits(self, rows: list[_Row], edit: Edit) -> bool:
        first, last = edit.location.row, edit.end_location.row
        old = self._lines[first - 1 : last]
        end_line = self._lines[last - 1] if 0 < last <= len(self._lines) else ""
        prefix = old[0][: edit.location.column - 1] if old else ""
        new = _LINE.findall(prefix + edit.content + end_line[edit.end_location.column - 1 :])
        same_start = 0
        while same_start < min(len(old), len(new)) and old[same_start] == new[same_start]:
            same_start += 1
        same_end = 0
        while same_end < min(len(old), len(new)) - same_start and old[-1 - same_end] == new[-1 - same_end]:
            same_end += 1
        changed = rows[first - 1 + same_start : first - 1 + len(old) - same_end]
        return len({row.cell for row in changed}) <= 1 and not any(row.neutralised for row in changed)


def _only_fixes_that_fit(result: FileResult, fits: _FitsCells, source: bytes) -> FileResult:
    """``result`` (of the joined cells ``source``) without the fixes ``--fix`` would not make."""

    def kept(diagnostic: Diagnostic) -> Diagnostic:
        fix = diagnostic.fix
        return diagnostic if fix is None or fits(source, fix) else replace(diagnostic, fix=None)

    changes: dict[str, Any] = {"diagnostics": tuple(map(kept, result.diagnostics))}
    deferred = getattr(result, "deferred", ())
    if deferred:
        changes["deferred"] = tuple(replace(finding, diagnostic=kept(finding.diagnostic)) for finding in deferred)
    return replace(result, **changes)


# ----------------------------------------------------------------------------- linting


def lint_notebook(
    source: bytes,
    filename: str,
    rules: Sequence[type[Rule]],
    settings: LintSettings | None = None,
    *,
    fix: bool = False,
    unsafe: bool = False,
) -> FileResult:
    """Findings for a notebook's code cells, positions counted within cells; with ``fix``,
    ``fixed_source`` is the whole notebook file with only the fixed cells' sources changed.
    Never raises for bad input: a file that is not a notebook is one TCK000 finding."""
    from torchcheck.lint.engine import FileResult, fix_source, lint_source
    from torchcheck.lint.settings import LintSettings

    notebook = parse(source)
    if isinstance(notebook, str):
        return FileResult((_problem(filename, notebook),))
    if not notebook.is_python or not notebook.cells:
        return FileResult(())
    joined = notebook.python_source.encode()
    index = notebook.index()
    settings = replace(settings or LintSettings(), cell_starts=tuple(row for row, _ in index.starts))
    fits = _FitsCells(notebook)
    if not fix:
        linted = _only_fixes_that_fit(lint_source(joined, filename, rules, settings), fits, joined)
        return _offered_fixes(_mapped(linted, index), notebook, source)
    result = fix_source(joined, filename, rules, unsafe=unsafe, settings=settings, fix_allowed=fits)
    result = _only_fixes_that_fit(result, fits, result.fixed_source or joined)
    if result.fixed_source is None:
        return _mapped(result, index)
    written = _written_fix(notebook, source, result.fixed_source)
    if written is None:  # the findings of the notebook as it stays on disk, with no fix to offer
        return _without_fixes(_mapped(lint_source(joined, filename, rules, settings), index))
    fixed_notebook = parse(written)
    assert isinstance(fixed_notebook, Notebook)  # with_sources read it back
    return _mapped(result, fixed_notebook.index(), fixed_source=written)


def _offered_fixes(result: FileResult, notebook: Notebook, source: bytes) -> FileResult:
    """``result`` without fixes when ``--fix`` could not write this notebook back, so that
    no finding claims a fix that would never be made."""
    if not any(d.fix is not None for d in result.diagnostics) or _layout(notebook.document, source) is not None:
        return result
    return _without_fixes(result)


def _without_fixes(result: FileResult) -> FileResult:
    return replace(result, diagnostics=tuple(replace(d, fix=None) for d in result.diagnostics))


def _written_fix(notebook: Notebook, source: bytes, fixed: bytes) -> bytes | None:
    sources = split_fixed(notebook, fixed.decode())
    if not sources:
        return None
    return with_sources(notebook, source, sources)


def add_noqa(source: bytes, diagnostics: Iterable[Diagnostic]) -> tuple[bytes, int]:
    """``source`` with ``# noqa`` comments for ``diagnostics`` added in their cells, and how
    many lines got one; the notebook unchanged when it cannot be written back."""
    notebook = parse(source)
    if isinstance(notebook, str):
        return source, 0
    by_cell: dict[int, list[tuple[int, str]]] = {}
    for d in diagnostics:
        if d.cell is not None and d.code != SYNTAX_ERROR_CODE:
            by_cell.setdefault(d.cell, []).append((d.location.row, d.code))
    sources, added = {}, 0
    for cell in notebook.cells:
        if cell.number not in by_cell:
            continue
        text, count = _cell_with_noqa(cell, by_cell[cell.number])
        if count:
            sources[cell.position], added = text, added + count
    written = with_sources(notebook, source, sources) if sources else None
    return (written, added) if written is not None else (source, 0)


def _cell_with_noqa(cell: CodeCell, findings: list[tuple[int, str]]) -> tuple[str, int]:
    """The cell with comments added; IPython lines are linted as ``pass`` and never get one."""
    edited, count = noqa.add_noqa("".join(cell.lines).encode(), findings)
    lines = _LINE.findall(edited.decode())
    if count == 0 or len(lines) != len(cell.lines):
        return cell.text, 0
    restored = [cell.raw_lines[row] if row in cell.neutralised else line for row, line in enumerate(lines)]
    if restored and not cell.text.endswith(("\n", "\r")):
        restored[-1] = restored[-1].rstrip("\r\n")
    return "".join(restored), count
