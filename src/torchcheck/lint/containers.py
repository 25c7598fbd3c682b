"""What a list the code fills step by step holds.

``losses = []`` followed by ``losses.append(part)`` in a loop is the common way to collect
values before ``sum(losses)`` or ``torch.stack(losses)``; the list literal says nothing of
its items, the ``append`` calls do. Asked by the context when it infers what a container's
items are (a loop over it, ``sum`` of it).
"""

from __future__ import annotations

import libcst as cst

from torchcheck.lint.binder import Binder

_FILLING_METHODS = frozenset({"append", "insert"})


def appended_items(binder: Binder, use: cst.Name) -> list[cst.BaseExpression] | None:
    """The values appended (or inserted) to the list ``use`` names, before ``use``, when
    every binding reaching it is an empty list literal; None when some binding is not one,
    or nothing is appended."""
    bindings = binder.bindings_before(use)
    if not bindings or not all(is_empty_list_binding(binding.node) for binding in bindings):
        return None
    items = []
    for binding in bindings:
        for reference in binder.references_to(binding):
            attribute = binder.parent(reference)
            call = binder.parent(attribute) if attribute is not None else None
            if not (isinstance(attribute, cst.Attribute) and isinstance(call, cst.Call) and call.func is attribute):
                continue
            if attribute.attr.value in _FILLING_METHODS and call.args and binder.precedes(call, use):
                items.append(call.args[-1].value)
    return items or None


def is_empty_list_binding(node: cst.CSTNode) -> bool:
    """``name = []`` or ``name = list()``."""
    return is_empty_list(node.value if isinstance(node, (cst.Assign, cst.AnnAssign)) else None)


def is_empty_list(value: cst.BaseExpression | None) -> bool:
    if isinstance(value, cst.List):
        return not value.elements
    return isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "list" and not value.args
