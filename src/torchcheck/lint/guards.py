"""What the tests around a node say when it runs: ``if``/``elif``/``else`` branches and
conditional expressions that hold it, and early exits before it (``if not ok: return``).

A rule that needs "this call runs only when ``hasattr(model, "no_sync")``" or "only when the
tie flag is off" asks :func:`known_at` for the tests that are true (or false) wherever
the node runs, each split into its simplest terms: ``not a`` false is ``a`` true, an ``and``
that holds makes each term hold, an ``or`` that fails makes each term fail. Nothing is
inferred from a term that only may hold (a term of a true ``or``).

Two nodes under opposite values of the same test (``if fresh: b = a`` ... ``if not fresh:
a[i] = b``) never both run in one pass, even in two separate ``if`` statements, as long as
the test reads the same values both times: :func:`never_together` answers that. Across two
methods of a class, :func:`exclusive_settings` says the same of tests on the instance's
own settings (``if self.mode == "multiclass":`` in one, ``if self.mode == "logistic":`` in
the other).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst

from torchcheck.lint.binder import Binder
from torchcheck.lint.nodes import dotted_name, names_read, source_text, subtree
from torchcheck.lint.references import class_of_method, is_method_receiver, on_other_branch

_EXITS = (cst.Return, cst.Raise, cst.Continue, cst.Break)
_FRAMES = (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.Module)
# Calls whose answer depends only on their arguments: a test made of these reads the same
# twice. Any other call may answer differently the second time (`random.random() < p`).
_PURE_CALLS = frozenset({"isinstance", "hasattr", "callable", "len"})


@dataclass(frozen=True)
class Held:
    """``test`` is ``holds`` (True or False) wherever the node runs."""

    test: cst.BaseExpression
    holds: bool


# Comparisons that hold exactly when their positive spelling fails (`x is not None`).
_NEGATED: dict[type[cst.BaseCompOp], type[cst.BaseCompOp]] = {cst.IsNot: cst.Is, cst.NotEqual: cst.Equal, cst.NotIn: cst.In}


def terms(test: cst.BaseExpression, holds: bool) -> Iterator[Held]:
    """The simplest tests that surely have a value when ``test`` is ``holds``."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        yield from terms(test.expression, not holds)
    elif isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And) == holds:
        yield from terms(test.left, holds)
        yield from terms(test.right, holds)
    elif isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and type(test.comparisons[0].operator) in _NEGATED:
        # `x is not None` holds exactly when `x is None` fails: one spelling for both
        target = test.comparisons[0]
        positive = _NEGATED[type(target.operator)]()  # type: ignore[index]
        yield Held(test.with_changes(comparisons=[target.with_changes(operator=positive)]), not holds)
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


def missing_attributes(binder: Binder, node: cst.CSTNode, name: str) -> set[str]:
    """The attributes that ``name`` may lack wherever ``node`` runs: those its ``try`` body
    reads on ``name`` when ``node`` sits in that ``try``'s ``except AttributeError`` handler
    (``try: m.named_parameters() except AttributeError: m.requires_grad = False``)."""
    missing: set[str] = set()
    child = node
    for ancestor in binder.ancestors(node):
        if isinstance(ancestor, (cst.Try, cst.TryStar)) and isinstance(child, cst.ExceptHandler) and _catches_attribute_error(child.type):
            missing.update(read.attr.value for read in subtree(ancestor.body) if isinstance(read, cst.Attribute) and _names(read.value, name))
        if isinstance(ancestor, _FRAMES):
            break
        child = ancestor
    return missing


def _catches_attribute_error(caught: cst.BaseExpression | None) -> bool:
    parts = [element.value for element in caught.elements] if isinstance(caught, cst.Tuple) else [caught]
    return any(isinstance(part, cst.Name) and part.value in ("AttributeError", "Exception") for part in parts)


def _names(expression: cst.BaseExpression, name: str) -> bool:
    return isinstance(expression, cst.Name) and expression.value == name


def _exits_before(block: cst.IndentedBlock | cst.Module, statement: cst.CSTNode) -> Iterator[Held]:
    """``if test: return`` (with no ``else``) before ``statement`` in ``block``: ``test`` is
    false past it."""
    for earlier in block.body:
        if earlier is statement:
            return
        if isinstance(earlier, cst.If) and earlier.orelse is None and ends_in_exit(earlier.body):
            yield from terms(earlier.test, False)


def ends_in_exit(body: cst.BaseSuite) -> bool:
    last = body.body[-1] if body.body else None
    if isinstance(last, cst.SimpleStatementLine):
        return isinstance(last.body[-1], _EXITS)
    return isinstance(body, cst.SimpleStatementSuite) and isinstance(body.body[-1], _EXITS)


def never_together(binder: Binder, first: cst.CSTNode, second: cst.CSTNode) -> bool:
    """Whether ``first`` and ``second`` never both run in one pass: one runs only where a
    test holds and the other only where the same test (the same code) fails, and the test
    reads the same values at both: it calls nothing but :data:`_PURE_CALLS`, and none of
    the names it reads is bound again between the two, nor anywhere in a loop around both
    (the next iteration could see the other value). The two branches of one ``if`` outside
    any loop around both never run together, whatever its test calls."""
    if binder.precedes(second, first):
        first, second = second, first
    if on_other_branch(binder, first, second) and not _shared_loops(binder, first, second):
        return True  # the two branches of one `if`, outside any loop around both: its test ran once
    opposite = {(source_text(held.test), not held.holds) for held in known_at(binder, second)}
    return any(
        (source_text(held.test), held.holds) in opposite and _reads_the_same(binder, held.test, first, second)
        for held in known_at(binder, first)
    )


def invariant_in(binder: Binder, test: cst.BaseExpression, loop: cst.CSTNode) -> bool:
    """Whether ``test`` reads the same in every iteration of ``loop``: it evaluates purely
    (:func:`_evaluates_purely`), and the loop binds none of the names it reads (``args.moe``, not
    ``i % 2 == 0``), nor assigns the attributes it reads."""
    if not _evaluates_purely(test):
        return False
    read = {dotted_name(node) for node in subtree(test) if isinstance(node, (cst.Name, cst.Attribute))} - {None}
    for node in subtree(loop):
        targets = [target.target for target in node.targets] if isinstance(node, cst.Assign) else [node.target] if isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For)) else []
        bound = {dotted_name(part) for target in targets for part in subtree(target) if isinstance(part, (cst.Name, cst.Attribute))}
        if bound & read:
            return False
    return True


def _shared_loops(binder: Binder, first: cst.CSTNode, second: cst.CSTNode) -> set[int]:
    return {id(loop) for loop in binder.loops_around(first)} & {id(loop) for loop in binder.loops_around(second)}


def _evaluates_purely(test: cst.BaseExpression) -> bool:
    """``test`` binds nothing, awaits and yields nothing, and calls only :data:`_PURE_CALLS`:
    evaluated twice on the same values, it gives the same answer."""
    for node in subtree(test, attribute_names=False):
        if isinstance(node, (cst.Lambda, cst.NamedExpr, cst.Await, cst.Yield)):
            return False
        if isinstance(node, cst.Call) and not (isinstance(node.func, cst.Name) and node.func.value in _PURE_CALLS):
            return False
    return True


def _reads_the_same(binder: Binder, test: cst.BaseExpression, first: cst.CSTNode, second: cst.CSTNode) -> bool:
    if not _evaluates_purely(test):
        return False
    shared_loops = _shared_loops(binder, first, second)
    scope = binder.scope_of(first)
    for name in names_read(test):
        for binding in binder.bindings_of(name.value, scope):
            if binder.precedes(first, binding.node) and binder.precedes(binding.node, second):
                return False
            if any(id(node) in shared_loops for node in (binding.node, *binder.ancestors(binding.node))):
                return False
    return True


def exclusive_settings(binder: Binder, first: cst.CSTNode, second: cst.CSTNode) -> bool:
    """Whether ``first`` and ``second``, in methods of one class, run under different
    settings of the instance: one only where ``self.<setting> == <constant>`` holds and the
    other only where it equals another constant, or where the same test on ``self`` fails.
    The instance's attributes read in a test are taken as its configuration, set before
    either runs (what separates a model's "multiclass" path from its "logistic" one)."""
    owner = class_of_method(binder, binder.enclosing(first, cst.FunctionDef))
    if owner is None or owner is not class_of_method(binder, binder.enclosing(second, cst.FunctionDef)):
        return False
    settings = {setting for held in known_at(binder, second) if (setting := _setting_test(binder, held)) is not None}
    for held in known_at(binder, first):
        setting = _setting_test(binder, held)
        if setting is None:
            continue
        subject, value, holds = setting
        if (subject, value, not holds) in settings:
            return True
        if holds and value is not None and any(s == subject and v not in (None, value) and h for s, v, h in settings):
            return True
    return False


def _setting_test(binder: Binder, held: Held) -> tuple[str, str | None, bool] | None:
    """``(subject, constant, holds)`` for a test of an instance attribute: ``self.mode ==
    "x"`` gives ``("self.mode", '"x"', holds)``, a bare ``self.use_bce`` gives
    ``("self.use_bce", None, holds)``; None for any other test."""
    test = held.test
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.comparisons[0].operator, cst.Equal):
        left, right = test.left, test.comparisons[0].comparator
        if isinstance(left, (cst.SimpleString, cst.Integer)):
            left, right = right, left
        if isinstance(right, (cst.SimpleString, cst.Integer)) and _is_instance_attribute(binder, left):
            return source_text(left), source_text(right), held.holds
        return None
    return (source_text(test), None, held.holds) if _is_instance_attribute(binder, test) else None


def _is_instance_attribute(binder: Binder, expression: cst.BaseExpression) -> bool:
    root = expression
    while isinstance(root, cst.Attribute):
        root = root.value
    return root is not expression and isinstance(root, cst.Name) and is_method_receiver(binder, root)
