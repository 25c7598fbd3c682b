"""Code that never runs: the body of ``if False:``, of ``if parallel:`` right after
``parallel = False`` (every binding of the name that reaches the test is a false literal),
and the ``else:`` of such a test that always holds. A mistake there never happens, so no
rule reports it.
"""

from __future__ import annotations

import libcst as cst

from torchcheck.lint.binder import Binder

_FALSE_NAMES = frozenset({"False", "None"})


def never_runs(binder: Binder, node: cst.CSTNode) -> bool:
    """Whether ``node`` lies in a branch whose test never lets it run."""
    child = node
    for ancestor in binder.ancestors(node):
        if type(ancestor) is cst.If or type(ancestor) is cst.While:
            if child is ancestor.body and _value(binder, ancestor.test) is False:  # type: ignore[attr-defined]
                return True
            if type(ancestor) is cst.If and child is ancestor.orelse and _value(binder, ancestor.test) is True:  # type: ignore[attr-defined]
                return True
        child = ancestor
    return False


def _value(binder: Binder, test: cst.BaseExpression, depth: int = 0) -> bool | None:
    """The truth of ``test`` wherever it is evaluated, when the code fixes it; else None."""
    test_type = type(test)
    if test_type is cst.Name:
        if test.value in _FALSE_NAMES or test.value == "True":  # type: ignore[attr-defined]
            return test.value == "True"  # type: ignore[attr-defined]
        return _bound_value(binder, test, depth)  # type: ignore[arg-type]
    if test_type is cst.Integer:
        return test.value != "0"  # type: ignore[attr-defined]
    if test_type is cst.UnaryOperation and type(test.operator) is cst.Not:  # type: ignore[attr-defined]
        inner = _value(binder, test.expression, depth)  # type: ignore[attr-defined]
        return None if inner is None else not inner
    if test_type is cst.BooleanOperation:
        left, right = _value(binder, test.left, depth), _value(binder, test.right, depth)  # type: ignore[attr-defined]
        if type(test.operator) is cst.And:  # type: ignore[attr-defined]
            return False if False in (left, right) else (True if left is right is True else None)
        return True if True in (left, right) else (False if left is right is False else None)
    return None


def _bound_value(binder: Binder, name: cst.Name, depth: int) -> bool | None:
    """The truth of a function's local name whose every binding that reaches ``name`` assigns the same
    literal (``parallel = False`` above ``if parallel:``)."""
    if depth > 2:
        return None
    bindings = binder.reaching(name)
    values = set()
    for binding in bindings:
        node = binding.node
        if type(binding.scope.node) is not cst.FunctionDef:
            return None  # a module's flag may be set from outside (`config.DEBUG = True`)
        if type(node) is not cst.Assign or len(node.targets) != 1 or node.targets[0].target is not binding.target:  # type: ignore[attr-defined]
            return None
        value = node.value  # type: ignore[attr-defined]
        if type(value) not in (cst.Name, cst.Integer):
            return None
        values.add(_value(binder, value, depth + 1))
    return values.pop() if len(values) == 1 and bindings else None
