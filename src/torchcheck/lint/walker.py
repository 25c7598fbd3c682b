"""One depth-first walk over a libcst tree that dispatches to many visitors at once.

libcst's own ``visit``/``visit_batched`` rebuild every node while walking, which costs as
much as parsing. Linting only reads the tree, so this walker follows the dataclass fields
directly and skips pure-syntax children (whitespace, commas, parentheses), which makes the
walk more than ten times cheaper. Visitors keep libcst's naming: ``visit_Call(node)`` runs on
the way down, ``leave_Call(node)`` on the way up.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import libcst as cst

_SYNTAX_ONLY_FIELDS = frozenset(
    {
        "lpar", "rpar", "leading_lines", "lines_after_decorators", "header", "footer", "comma",
        "semicolon", "equal", "colon", "dot", "whitespace", "operator", "trailing_whitespace",
        "asynchronous", "star", "walrus", "arrow", "lbracket", "rbracket", "lbrace", "rbrace",
    }
)

_Handler = Callable[[cst.CSTNode], object]


def _child_fields(node_type: type[cst.CSTNode]) -> tuple[str, ...]:
    names = [
        f.name
        for f in dataclasses.fields(node_type)
        if f.name not in _SYNTAX_ONLY_FIELDS and not f.name.startswith("whitespace")
    ]
    if "decorators" in names:  # decorators run before the body they decorate
        names.remove("decorators")
        names.insert(0, "decorators")
    return tuple(names)


_FIELDS_BY_TYPE: dict[type[cst.CSTNode], tuple[str, ...]] = {}


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The semantic children of ``node`` in source order (syntax-only tokens left out)."""
    node_type = type(node)
    fields = _FIELDS_BY_TYPE.get(node_type)
    if fields is None:
        fields = _FIELDS_BY_TYPE[node_type] = _child_fields(node_type)
    found: list[cst.CSTNode] = []
    for name in fields:
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            found.append(value)
        elif isinstance(value, (tuple, list)):
            found.extend(item for item in value if isinstance(item, cst.CSTNode))
    return found


class BatchedWalker:
    """Walks a tree once, calling every visitor's ``visit_<Type>``/``leave_<Type>`` methods.

    Visitors are called in the given order on the way down and in reverse order on the
    way up, so a context visitor placed first sees a node before the rules and updates its
    bindings after them.
    """

    def __init__(self, visitors: Sequence[object]) -> None:
        self._visitors = tuple(visitors)
        self._visit: dict[type, tuple[_Handler, ...]] = {}
        self._leave: dict[type, tuple[_Handler, ...]] = {}

    def _handlers(self, node_type: type) -> tuple[tuple[_Handler, ...], tuple[_Handler, ...]]:
        visit = self._visit.get(node_type)
        if visit is None:
            type_name = node_type.__name__
            visit = tuple(
                handler
                for visitor in self._visitors
                if (handler := getattr(visitor, f"visit_{type_name}", None)) is not None
            )
            self._visit[node_type] = visit
            self._leave[node_type] = tuple(
                handler
                for visitor in reversed(self._visitors)
                if (handler := getattr(visitor, f"leave_{type_name}", None)) is not None
            )
        return visit, self._leave[node_type]

    def walk(self, node: cst.CSTNode) -> None:
        visit, leave = self._handlers(type(node))
        for handler in visit:
            handler(node)
        for child in children(node):
            self.walk(child)
        for handler in leave:
            handler(node)
