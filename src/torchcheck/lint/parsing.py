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
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
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


@contextmanager
def _parser_checks_only() -> Iterator[None]:
    with _ONE_PARSE_AT_A_TIME:
        CSTNode.__post_init__ = _trusted  # type: ignore[method-assign]
        for node_type in CHECKED_WHILE_PARSING:
            node_type.__post_init__ = _VALIDATING_POST_INIT  # type: ignore[method-assign]
        try:
            yield
        finally:
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
