"""One depth-first walk over a libcst tree that dispatches to many visitors at once.

libcst's own ``visit``/``visit_batched`` rebuild every node while walking, which costs as
much as parsing. Linting only reads the tree, so this walker follows the dataclass fields
directly and skips pure-syntax children (whitespace, commas, parentheses), which makes the
walk more than ten times cheaper. Visitors keep libcst's naming: ``visit_Call(node)`` runs on
the way down, ``leave_Call(node)`` on the way up.
"""

from __future__ import annotations

import dataclasses
import typing
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
# What the walk does at a node of one type: its visit handlers, the fields holding its
# children, its leave handlers.
_Plan = tuple[tuple[_Handler, ...], tuple[str, ...], tuple[_Handler, ...]]


# Field types that never hold a node: `Name.value`, `Integer.value`, `IndentedBlock.indent`.
_TEXT_TYPES = (str, bool, int, typing.Optional[str])  # noqa: UP007 - what get_type_hints returns


def _holds_no_node(node_type: type[cst.CSTNode], name: str) -> bool:
    try:
        hint = typing.get_type_hints(node_type).get(name)
    except (NameError, TypeError):  # an annotation this Python cannot evaluate: look inside
        return False
    return hint in _TEXT_TYPES


def _child_fields(node_type: type[cst.CSTNode]) -> tuple[str, ...]:
    names = [
        f.name
        for f in dataclasses.fields(node_type)
        if f.name not in _SYNTAX_ONLY_FIELDS
        and not f.name.startswith("whitespace")
        and not _holds_no_node(node_type, f.name)
    ]
    if "decorators" in names:  # decorators run before the body they decorate
        names.remove("decorators")
        names.insert(0, "decorators")
    return tuple(names)


_FIELDS_BY_TYPE: dict[type[cst.CSTNode], tuple[str, ...]] = {}


class _NodeTypes(dict[type, bool]):
    """Whether a field value's type is a node: ``isinstance(value, cst.CSTNode)`` goes through
    ABCMeta on every call, and the walk asks it millions of times per corpus."""

    def __missing__(self, value_type: type) -> bool:
        known = self[value_type] = issubclass(value_type, cst.CSTNode)
        return known


_IS_NODE_TYPE = _NodeTypes()


def _fields_of(node_type: type[cst.CSTNode]) -> tuple[str, ...]:
    fields = _FIELDS_BY_TYPE.get(node_type)
    if fields is None:
        fields = _FIELDS_BY_TYPE[node_type] = _child_fields(node_type)
    return fields


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The semantic children of ``node`` in source order (syntax-only tokens left out)."""
    found: list[cst.CSTNode] = []
    for name in _fields_of(type(node)):
        value = getattr(node, name)
        value_type = type(value)
        if value_type is tuple or value_type is list:
            found.extend(value)  # libcst's sequences hold nodes only
        elif _IS_NODE_TYPE[value_type]:
            found.append(value)
    return found


_HANDLER_NAMES: dict[type, frozenset[str]] = {}


def _handler_names(visitor_class: type) -> frozenset[str]:
    """The ``visit_*``/``leave_*`` methods of a visitor class; looked up once per class, not
    once per node type and file (a miss of ``getattr`` on each of some 80 visitors was a
    tenth of the walk)."""
    names = _HANDLER_NAMES.get(visitor_class)
    if names is None:
        names = _HANDLER_NAMES[visitor_class] = frozenset(
            name for name in dir(visitor_class) if name.startswith(("visit_", "leave_"))
        )
    return names


# Which visitors (by position) define each handler, for one sequence of visitor classes:
# the same rules walk file after file, so this is worked out once per set of rules, and a
# walker looks up the handlers of a node type in it instead of asking every visitor.
_Handlers = dict[str, tuple[int, ...]]
_HANDLERS: dict[tuple[type, ...], _Handlers] = {}


def _handlers_of(visitor_classes: tuple[type, ...]) -> _Handlers:
    handlers = _HANDLERS.get(visitor_classes)
    if handlers is None:
        found: dict[str, list[int]] = {}
        for position, visitor_class in enumerate(visitor_classes):
            for name in _handler_names(visitor_class):
                found.setdefault(name, []).append(position)
        handlers = _HANDLERS[visitor_classes] = {name: tuple(positions) for name, positions in found.items()}
    return handlers


class BatchedWalker:
    """Walks a tree once, calling every visitor's ``visit_<Type>``/``leave_<Type>`` methods.

    Visitors are called in the given order on the way down and in reverse order on the
    way up, so a context visitor placed first sees a node before the rules and updates its
    bindings after them.
    """

    def __init__(self, visitors: Sequence[object]) -> None:
        self._visitors = tuple(visitors)
        self._handlers = _handlers_of(tuple(type(visitor) for visitor in self._visitors))
        self._plans: dict[type, _Plan] = {}

    def _plan(self, node_type: type[cst.CSTNode]) -> _Plan:
        visit_name, leave_name = f"visit_{node_type.__name__}", f"leave_{node_type.__name__}"
        visitors, handlers = self._visitors, self._handlers
        visit = tuple(getattr(visitors[i], visit_name) for i in handlers.get(visit_name, ()))
        leave = tuple(getattr(visitors[i], leave_name) for i in reversed(handlers.get(leave_name, ())))
        plan = self._plans[node_type] = (visit, _fields_of(node_type), leave)
        return plan

    def walk(self, node: cst.CSTNode) -> None:
        node_type = type(node)
        visit, fields, leave = self._plans.get(node_type) or self._plan(node_type)
        for handler in visit:
            handler(node)
        for name in fields:
            value = getattr(node, name)
            value_type = type(value)
            if value_type is tuple or value_type is list:
                for item in value:  # libcst's sequences hold nodes only
                    self.walk(item)
            elif _IS_NODE_TYPE[value_type]:
                self.walk(value)
        for handler in leave:
            handler(node)

    def walk_module(self, module: cst.Module, entering: Callable[[cst.CSTNode], object]) -> None:
        """Walk ``module``, calling ``entering(statement)`` before each top-level statement."""
        visit, _, leave = self._plans.get(cst.Module) or self._plan(cst.Module)
        for handler in visit:
            handler(module)
        for statement in module.body:
            entering(statement)
            self.walk(statement)
        for handler in leave:
            handler(module)
