"""Line and column of the few nodes a file's findings point at, without libcst's
``PositionProvider``.

``PositionProvider`` tracks the line and column after every token of the file; on a large
model file that costs about twice the parse. Findings need positions for a handful of nodes,
so this module regenerates the code once with libcst's plain codegen, notes only *which
token* each node starts and ends at, and turns token indices into lines and columns for the
nodes asked about. The result is identical to ``PositionProvider`` (a test checks every node
of the lint corpus).
"""

from __future__ import annotations

import itertools
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
        try:
            yield
        finally:
            end = len(self.tokens)
            if start_node is not None:
                start = self.spans[start_node][0]
            if end_node is not None:
                end = self.spans[end_node][1]
            self.spans[node] = (start, end)


class Positions:
    """Where each node of ``module`` is, as libcst's ``PositionProvider`` would say."""

    def __init__(self, module: cst.Module) -> None:
        state = _TokenSpans(default_indent=module.default_indent, default_newline=module.default_newline)
        module._codegen(state)
        self._spans = state.spans
        self._offsets = list(itertools.accumulate(map(len, state.tokens), initial=0))
        self._code = "".join(state.tokens)

    def _position(self, token_index: int) -> CodePosition:
        offset = self._offsets[token_index]
        line_start = self._code.rfind("\n", 0, offset) + 1
        return CodePosition(self._code.count("\n", 0, offset) + 1, offset - line_start)

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        start, end = self._spans[node]
        return CodeRange(self._position(start), self._position(end))
