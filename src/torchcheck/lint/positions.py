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


def _one_newline_per_line_break(code: str) -> str:
    """``code`` of the same length with every line break ending in a single ``\n``, so that
    counting ``\n`` counts lines in files with ``\r\n`` or old Mac ``\r`` line ends."""
    return code.replace("\r\n", " \n").replace("\r", "\n") if "\r" in code else code


def _original_line_numbers(generated: str, original: str) -> list[int] | None:
    """For each line of ``generated``, its 1-based number in ``original``; None when the
    two agree line for line. Lines are matched in order, skipping the original's lone
    continuation lines that the codegen dropped."""
    if generated == original:
        return None
    original_lines = LINE_BREAK.split(original)
    numbers: list[int] = []
    row = 0
    for line in LINE_BREAK.split(generated):
        while (
            row < len(original_lines)
            and original_lines[row] != line
            and _LONE_CONTINUATION.fullmatch(original_lines[row])
        ):
            row += 1
        numbers.append(row + 1)
        row += 1
    return numbers


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
        self._whole: tuple[dict[cst.CSTNode, tuple[int, int]], list[int], str, list[int] | None] | None = None
        self._statements: dict[cst.CSTNode, _StatementSpans | None] = {}
        self._source_lines: str | None = None  # the source with one `\n` per line break

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        spans, offsets, code, line_numbers = self._whole or self._regenerate_module()
        start, end = spans[node]
        return CodeRange(
            _position(code, offsets[start], line_numbers), _position(code, offsets[end], line_numbers)
        )

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

    def _regenerate_module(self) -> tuple[dict[cst.CSTNode, tuple[int, int]], list[int], str, list[int] | None]:
        state = _codegen(self._module, self._module)
        offsets = list(itertools.accumulate(map(len, state.tokens), initial=0))
        code = "".join(state.tokens)
        line_numbers = None if self._source is None else _original_line_numbers(code, self._source)
        self._whole = (state.spans, offsets, _one_newline_per_line_break(code), line_numbers)
        return self._whole


def _position(code: str, offset: int, line_numbers: list[int] | None) -> CodePosition:
    line_start = code.rfind("\n", 0, offset) + 1
    line = code.count("\n", 0, offset) + 1
    if line_numbers is not None:
        line = line_numbers[line - 1]
    return CodePosition(line, offset - line_start)
