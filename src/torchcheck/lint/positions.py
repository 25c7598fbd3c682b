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


class Positions:
    """Where each node of ``module`` is, as libcst's ``PositionProvider`` would say; given
    the file's ``source`` text, lines are numbered as in that text."""

    def __init__(self, module: cst.Module, source: str | None = None) -> None:
        state = _TokenSpans(default_indent=module.default_indent, default_newline=module.default_newline)
        module._codegen(state)
        self._spans = state.spans
        self._offsets = list(itertools.accumulate(map(len, state.tokens), initial=0))
        code = "".join(state.tokens)
        self._code = _one_newline_per_line_break(code)
        self._line_numbers = None if source is None else _original_line_numbers(code, source)

    def _position(self, token_index: int) -> CodePosition:
        offset = self._offsets[token_index]
        line_start = self._code.rfind("\n", 0, offset) + 1
        line = self._code.count("\n", 0, offset) + 1
        if self._line_numbers is not None:
            line = self._line_numbers[line - 1]
        return CodePosition(line, offset - line_start)

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        start, end = self._spans[node]
        return CodeRange(self._position(start), self._position(end))
