"""Line and column of the few nodes a file's findings point at, without libcst's
``PositionProvider``.

``PositionProvider`` tracks the line and column after every token of the file; on a large
model file that costs about twice the parse. Findings need positions for a handful of nodes,
so this module regenerates the code once with libcst's plain codegen, notes only *which
token* each node starts and ends at, and turns token indices into lines and columns for the
nodes asked about. The result is identical to ``PositionProvider`` (a test checks every node
of the lint corpus), except where libcst's codegen is not the file's text: it drops a line
that holds only a backslash continuation before a statement, so lines are mapped back to
the file's own numbering (``PositionProvider`` is one line off after such a line).
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst.metadata import CodePosition, CodeRange


@dataclass
class _TokenSpans(CodegenState):
    """Codegen that records, per node, the token indices where it starts and ends: the
    syntactic span where libcst reports one, else the span including whitespace."""

    spans: dict[cst.CSTNode, tuple[int, int]] = field(default_factory=dict)
    _open: list[int] = field(default_factory=list)

    def pop_trailing_newline(self) -> None:
        """Keep the newline: like ``PositionProvider``, spans that end there count it."""

    def before_codegen(self, node: cst.CSTNode) -> None:
        self._open.append(len(self.tokens))

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self._open.pop()
        self.spans.setdefault(node, (start, len(self.tokens)))

    @contextmanager
    def record_syntactic_position(
        self, node: cst.CSTNode, *, start_node: cst.CSTNode | None = None, end_node: cst.CSTNode | None = None
    ) -> Iterator[None]:
        start = len(self.tokens)
        yield  # no ``finally``: after an error (say, RecursionError) the children have no spans
        end = len(self.tokens)
        if start_node is not None:
            start = self.spans[start_node][0]
        if end_node is not None:
            end = self.spans[end_node][1]
        self.spans[node] = (start, end)


# A line libcst's codegen leaves out: only a backslash continuation (and indentation).
_LONE_CONTINUATION = re.compile(r"[ \t\f]*\\")
LINE_BREAK = re.compile(r"\r\n|\r|\n")
_LINE_AND_BREAK = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def _one_newline_per_line_break(code: str) -> str:
    """``code`` of the same length with every line break ending in a single ``\n``, so that
    counting ``\n`` counts lines in files with ``\r\n`` or old Mac ``\r`` line ends."""
    return code.replace("\r\n", " \n").replace("\r", "\n") if "\r" in code else code


_INDENTATION = " \t\f"


@dataclass(frozen=True)
class _LineMap:
    """Where each line of libcst's code for a module is in the file it was parsed from.

    ``rows[i]``: the 1-based row in the file of generated line ``i``. ``shifts[i]``: for a
    line whose indentation differs from the file's (a form feed libcst dropped, or copied
    from a block's first line into the others), the generated indentation's length and the
    columns to add after it.
    """

    rows: list[int]
    shifts: dict[int, tuple[int, int]]

    def position(self, line: int, column: int) -> CodePosition:
        shift = self.shifts.get(line - 1)
        if shift is not None and column >= shift[0]:
            column += shift[1]
        return CodePosition(self.rows[line - 1], column)


def _indentation_shift(generated: str, original: str) -> tuple[int, int] | None:
    body = generated.lstrip(_INDENTATION)
    if generated == original or body != original.lstrip(_INDENTATION):
        return None
    return len(generated) - len(body), len(original) - len(generated)


def _line_map(generated: str, original: str) -> _LineMap | None:
    """For each line of ``generated``, its place in ``original``; None when the two agree.
    Lines are matched in order, skipping the original's lone continuation lines that the
    codegen dropped."""
    if generated == original:
        return None
    original_lines = LINE_BREAK.split(original)
    rows: list[int] = []
    shifts: dict[int, tuple[int, int]] = {}
    row = 0
    for index, line in enumerate(LINE_BREAK.split(generated)):
        while (
            row < len(original_lines)
            and original_lines[row] != line
            and _LONE_CONTINUATION.fullmatch(original_lines[row])
        ):
            row += 1
        rows.append(row + 1)
        shift = _indentation_shift(line, original_lines[row]) if row < len(original_lines) else None
        if shift is not None:
            shifts[index] = shift
        row += 1
    return _LineMap(rows, shifts)


def _only_line_start_occurrence(text: str, part: str) -> int | None:
    """Where ``part`` starts in ``text`` at the start of a line, if it does so exactly once."""
    found = None
    index = text.find(part)
    while index >= 0:
        if index == 0 or text[index - 1] in "\r\n":
            if found is not None:
                return None
            found = index
        index = text.find(part, index + 1)
    return found


def _codegen(node: cst.CSTNode, module: cst.Module) -> _TokenSpans:
    state = _TokenSpans(default_indent=module.default_indent, default_newline=module.default_newline)
    node._codegen(state)
    return state


class _StatementSpans:
    """The spans of one top-level statement's nodes, as offsets into the file's text."""

    def __init__(self, state: _TokenSpans, start: int) -> None:
        self.spans = state.spans
        self.offsets = [start + offset for offset in itertools.accumulate(map(len, state.tokens), initial=0)]


class Positions:
    """Where each node of ``module`` is, as libcst's ``PositionProvider`` would say; given
    the file's ``source`` text, lines are numbered as in that text.

    ``positions[node]`` regenerates the whole module once. :meth:`locate` with the node's
    top-level statement regenerates only that statement and finds its code in ``source``;
    a file with findings in one class of a long model file pays for that class alone.
    """

    def __init__(self, module: cst.Module, source: str | None = None) -> None:
        self._module = module
        self._source = source
        self._whole: tuple[dict[cst.CSTNode, tuple[int, int]], list[int], str, _LineMap | None] | None = None
        self._statements: dict[cst.CSTNode, _StatementSpans | None] = {}
        self._source_lines: str | None = None  # the source with one `\n` per line break

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        spans, offsets, code, line_map = self._whole or self._regenerate_module()
        start, end = spans[node]
        return CodeRange(_position(code, offsets[start], line_map), _position(code, offsets[end], line_map))

    def locate(self, node: cst.CSTNode, statement: cst.CSTNode | None) -> CodeRange:
        """Where ``node`` is, given the top-level statement that holds it (a hint: a wrong or
        missing one costs the whole module's codegen, never a wrong position)."""
        found = self._statement(statement) if statement is not None else None
        if found is None or node not in found.spans:
            return self[node]
        start, end = found.spans[node]
        assert self._source_lines is not None
        return CodeRange(
            _position(self._source_lines, found.offsets[start], None), _position(self._source_lines, found.offsets[end], None)
        )

    def _statement(self, statement: cst.CSTNode) -> _StatementSpans | None:
        if statement not in self._statements:
            self._statements[statement] = self._regenerate_statement(statement)
        return self._statements[statement]

    def _regenerate_statement(self, statement: cst.CSTNode) -> _StatementSpans | None:
        if self._source is None or statement not in self._module.body:
            return None
        state = _codegen(statement, self._module)
        start = _only_line_start_occurrence(self._source, "".join(state.tokens))
        if start is None:  # repeated, or not the file's own text (a dropped continuation line)
            return None
        if self._source_lines is None:
            self._source_lines = _one_newline_per_line_break(self._source)
        return _StatementSpans(state, start)

    def _regenerate_module(self) -> tuple[dict[cst.CSTNode, tuple[int, int]], list[int], str, _LineMap | None]:
        state = _codegen(self._module, self._module)
        offsets = list(itertools.accumulate(map(len, state.tokens), initial=0))
        code = "".join(state.tokens)
        line_map = None if self._source is None else _line_map(code, self._source)
        self._whole = (state.spans, offsets, _one_newline_per_line_break(code), line_map)
        return self._whole


def _position(code: str, offset: int, line_map: _LineMap | None) -> CodePosition:
    line_start = code.rfind("\n", 0, offset) + 1
    line = code.count("\n", 0, offset) + 1
    if line_map is not None:
        return line_map.position(line, offset - line_start)
    return CodePosition(line, offset - line_start)


def rewritten_bytes(source: bytes, parsed: cst.Module, rewritten: cst.Module) -> bytes:
    """The file ``source`` (from which libcst parsed ``parsed``) as ``rewritten`` says, each
    line the rewrite did not change kept as the file has it.

    libcst's code is not always the file's text: it drops a lone backslash line and a form
    feed that starts a line of a block. Writing its code for the whole tree would change
    such lines, which no fix touched.
    """
    encoding = parsed.encoding
    before, after = parsed.code, rewritten.code
    if before.encode(encoding) == source:
        return after.encode(encoding)
    try:
        text = source.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return after.encode(encoding)
    return with_untouched_lines_kept(text, before, after).encode(encoding)


def with_untouched_lines_kept(source: str, before: str, after: str) -> str:
    """``after`` with every line it shares with ``before`` taken from ``source`` instead:
    ``before`` is libcst's code for the tree parsed from ``source``, ``after`` for the tree
    rewritten. Where ``before`` cannot be matched to ``source`` line by line, ``after``."""
    line_map = _line_map(before, source)
    if line_map is None:
        return after
    source_lines = _LINE_AND_BREAK.findall(source)
    before_lines = _LINE_AND_BREAK.findall(before)
    after_lines = _LINE_AND_BREAK.findall(after)
    owned = _rows_owned(line_map.rows[: len(before_lines)], len(source_lines))
    if owned is None or not all(
        _same_but_indentation(line, source_lines[rows[-1]]) for line, rows in zip(before_lines, owned) if rows
    ):
        return after
    kept: list[str] = []
    matcher = difflib.SequenceMatcher(None, before_lines, after_lines)
    for tag, start, end, new_start, new_end in matcher.get_opcodes():
        if tag == "equal":
            kept.extend(source_lines[row] for rows in owned[start:end] for row in rows)
        else:
            kept.extend(after_lines[new_start:new_end])
    return "".join(kept)


def _rows_owned(rows: list[int], source_rows: int) -> list[range] | None:
    """For each generated line, the 0-based rows of the file it stands for: its own, the
    dropped lines just before it, and after the last line, the rest of the file."""
    owned: list[range] = []
    previous = 0
    for index, row in enumerate(rows):
        if row <= previous or row > source_rows:
            return None
        last = source_rows if index == len(rows) - 1 else row
        owned.append(range(previous, last))
        previous = row
    return owned


def _same_but_indentation(generated: str, original: str) -> bool:
    return generated.lstrip(_INDENTATION) == original.lstrip(_INDENTATION)
