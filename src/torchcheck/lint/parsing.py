"""Parse a file with libcst, without re-checking what libcst's parser already guarantees.

Every libcst node checks itself when it is built (``CSTNode._validate``): that a
whitespace node holds only whitespace, that a name is an identifier, that a statement
keyword is followed by a space. Those checks exist for trees that people build by hand;
the parser's tokenizer and grammar already guarantee nearly all of them, and running
them costs about a tenth of a parse (libcst's own source notes the same).

:func:`parse_module` builds the tree with the checks switched off, except for the few
node types whose checks catch code the grammar accepts but Python rejects
(:data:`CHECKED_WHILE_PARSING`): a bare ``except:`` that is not the last handler, and a
string concatenated with bytes. The tree is the one :func:`libcst.parse_module` builds;
tests/lint/test_parsing.py compares both on every fixture and on code each check rejects.

The parser builds each node by calling its class, and a frozen dataclass's ``__init__``
stores every field through ``object.__setattr__`` and then calls ``__post_init__``: a
tenth of a parse again. While parsing, each node class has a plain ``__init__`` instead
(:func:`_trusting_init`) that stores the fields straight into their slots and checks
nothing, except for the types above.
"""

from __future__ import annotations

import dataclasses
import threading
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import libcst as cst
from libcst import CSTNode

# Node types whose own checks reject code that libcst's grammar accepts.
CHECKED_WHILE_PARSING: tuple[type[CSTNode], ...] = (cst.Try, cst.TryStar, cst.ConcatenatedString)

_VALIDATING_POST_INIT = CSTNode.__dict__["__post_init__"]
# The switch changes libcst's classes for the whole process, so one parse at a time.
_ONE_PARSE_AT_A_TIME = threading.Lock()


def _trusted(self: CSTNode) -> None:
    """A node built by the parser: nothing to check."""


def _node_classes() -> list[type[CSTNode]]:
    """Every concrete node class: the dataclasses below ``CSTNode`` whose fields are slots."""
    found: list[type[CSTNode]] = []
    pending: list[type] = [CSTNode]
    while pending:
        for subclass in pending.pop().__subclasses__():
            if subclass not in found:
                found.append(subclass)
                pending.append(subclass)
    return [c for c in found if dataclasses.is_dataclass(c) and "__init__" in c.__dict__ and "__slots__" in c.__dict__]


def _slot(node_type: type, name: str) -> types.MemberDescriptorType | None:
    return next((k.__dict__[name] for k in node_type.__mro__ if isinstance(k.__dict__.get(name), types.MemberDescriptorType)), None)


def _trusting_init(node_type: type[CSTNode]) -> Callable[..., None] | None:
    """An ``__init__`` with the dataclass's signature and defaults that fills the slots and,
    for :data:`CHECKED_WHILE_PARSING`, checks the node; None for a class it cannot stand in for."""
    namespace: dict[str, object] = {"_MISSING": dataclasses.MISSING}
    parameters, lines = [], []
    for index, field in enumerate(dataclasses.fields(node_type)):
        slot = _slot(node_type, field.name)
        if not field.init or field.kw_only or slot is None:
            return None
        value = field.name
        namespace[f"_set{index}"] = slot.__set__
        if field.default is not dataclasses.MISSING:
            namespace[f"_default{index}"] = field.default
            parameters.append(f"{field.name}=_default{index}")
        elif field.default_factory is not dataclasses.MISSING:
            namespace[f"_factory{index}"] = field.default_factory
            parameters.append(f"{field.name}=_MISSING")
            value = f"_factory{index}() if {field.name} is _MISSING else {field.name}"
        else:
            parameters.append(field.name)
        lines.append(f"    _set{index}(self, {value})")
    if issubclass(node_type, CHECKED_WHILE_PARSING):
        lines.append("    self._validate()")
    exec(f"def __init__(self, {', '.join(parameters)}):\n" + "\n".join(lines or ["    pass"]), namespace)  # noqa: S102 - code built from the dataclass's own fields
    return namespace["__init__"]  # type: ignore[return-value]


_TRUSTING_INITS: dict[type[CSTNode], tuple[Callable[..., None], Callable[..., None]]] = {}  # class -> (parser's, own)


def _trusting_inits() -> dict[type[CSTNode], tuple[Callable[..., None], Callable[..., None]]]:
    if not _TRUSTING_INITS:
        for node_type in _node_classes():
            trusting = _trusting_init(node_type)
            if trusting is not None:
                _TRUSTING_INITS[node_type] = (trusting, node_type.__dict__["__init__"])
    return _TRUSTING_INITS


def _switches_post_init() -> bool:
    """Whether some node class of libcst's namespace keeps its own ``__init__`` while parsing
    (none in libcst 1.x): then its ``__post_init__`` is switched off instead. Switching a
    method of ``CSTNode`` costs a visit of its every subclass, so it is done only then."""
    inits = _trusting_inits()
    public = (getattr(cst, name) for name in dir(cst))
    return any(
        isinstance(node_type, type) and issubclass(node_type, CSTNode) and "__init__" in node_type.__dict__ and node_type not in inits
        for node_type in public
        if node_type is not CSTNode
    )


_SWITCHES_POST_INIT: list[bool] = []


@contextmanager
def _parser_checks_only() -> Iterator[None]:
    with _ONE_PARSE_AT_A_TIME:
        inits = _trusting_inits()
        if not _SWITCHES_POST_INIT:
            _SWITCHES_POST_INIT.append(_switches_post_init())
        switch_post_init = _SWITCHES_POST_INIT[0]
        if switch_post_init:
            CSTNode.__post_init__ = _trusted  # type: ignore[method-assign]
            for node_type in CHECKED_WHILE_PARSING:
                node_type.__post_init__ = _VALIDATING_POST_INIT  # type: ignore[method-assign]
        for node_type, (trusting, _) in inits.items():
            node_type.__init__ = trusting  # type: ignore[misc]
        try:
            yield
        finally:
            for node_type, (_, own) in inits.items():
                node_type.__init__ = own  # type: ignore[misc]
            if switch_post_init:
                for node_type in CHECKED_WHILE_PARSING:
                    del node_type.__post_init__
                CSTNode.__post_init__ = _VALIDATING_POST_INIT  # type: ignore[method-assign]


def parse_module(source: bytes | str) -> cst.Module:
    """The module libcst parses from ``source``; raises what :func:`libcst.parse_module` raises.

    One difference: libcst takes the file's indentation unit from its first indented line,
    form feed included, and its codegen would then start every line of every block with a
    form feed. Python's indentation starts after a form feed, and so does this module's.
    """
    with _parser_checks_only():
        module = cst.parse_module(source)
    if "\f" in module.default_indent:
        module = module.with_changes(default_indent=module.default_indent.rpartition("\f")[2])
    return module
