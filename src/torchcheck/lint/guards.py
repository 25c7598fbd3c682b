"""What the tests around a node say when it runs: ``if``/``elif``/``else`` branches and
conditional expressions that hold it, and early exits before it (``if not ok: return``).

A rule that needs "this call runs only when ``hasattr(model, "no_sync")``" or "only when the
tie flag is off" asks :func:`known_at` for the tests that are true (or false) wherever
the node runs, each split into its simplest terms: ``not a`` false is ``a`` true, an ``and``
that holds makes each term hold, an ``or`` that fails makes each term fail. Nothing is
inferred from a term that only may hold (a term of a true ``or``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst

from torchcheck.lint.binder import Binder

_EXITS = (cst.Return, cst.Raise, cst.Continue, cst.Break)
_FRAMES = (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.Module)


@dataclass(frozen=True)
class Held:
    """``test`` is ``holds`` (True or False) wherever the node runs."""

    test: cst.BaseExpression
    holds: bool


def terms(test: cst.BaseExpression, holds: bool) -> Iterator[Held]:
    """The simplest tests that surely have a value when ``test`` is ``holds``."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        yield from terms(test.expression, not holds)
    elif isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And) == holds:
        yield from terms(test.left, holds)
        yield from terms(test.right, holds)
    elif not isinstance(test, cst.BooleanOperation):
        yield Held(test, holds)


def known_at(binder: Binder, node: cst.CSTNode) -> Iterator[Held]:
    """The terms known wherever ``node`` runs, from the branches around it and the early
    exits before it, up to its function (or class, or module)."""
    child = node
    for ancestor in binder.ancestors(node):
        if isinstance(ancestor, (cst.If, cst.IfExp)) and child is not ancestor.test:
            yield from terms(ancestor.test, child is ancestor.body)
        if isinstance(ancestor, cst.IndentedBlock):
            yield from _exits_before(ancestor, child)
        if isinstance(ancestor, _FRAMES):
            if isinstance(ancestor, cst.Module):
                yield from _exits_before(ancestor, child)
            return
        child = ancestor


def _exits_before(block: cst.IndentedBlock | cst.Module, statement: cst.CSTNode) -> Iterator[Held]:
    """``if test: return`` (with no ``else``) before ``statement`` in ``block``: ``test`` is
    false past it."""
    for earlier in block.body:
        if earlier is statement:
            return
        if isinstance(earlier, cst.If) and earlier.orelse is None and _ends_in_exit(earlier.body):
            yield from terms(earlier.test, False)


def _ends_in_exit(body: cst.BaseSuite) -> bool:
    last = body.body[-1] if body.body else None
    if isinstance(last, cst.SimpleStatementLine):
        return isinstance(last.body[-1], _EXITS)
    return isinstance(body, cst.SimpleStatementSuite) and isinstance(body.body[-1], _EXITS)
