"""Whether the code wants a tensor's gradient: it reads its ``.grad``, or hands the tensor to
an optimizer - in the list of parameters, in a param group's ``"params"``, or in a list that
is built up (``params = [...]``, ``params += [...]``, ``params.append(w)``) and then handed on.

Asked about one read of the tensor (a name, or ``self.<attribute>`` anywhere in its class),
after the walk, through the binder's parent links and references.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from torchcheck.lint import references

if TYPE_CHECKING:
    from torchcheck.lint.context import LintContext

# How many lists a tensor may pass through on its way to the optimizer.
_MAX_DEPTH = 3
_GROWING_METHODS = frozenset({"append", "extend", "insert"})
_OPTIMIZERS = "torch.optim."


def gradient_wanted(context: LintContext, read: cst.BaseExpression) -> bool:
    """``read.grad`` is read, ``read`` is returned, or handed to an optimizer."""
    parent = context.binder.parent(read)
    if isinstance(parent, cst.Attribute) and parent.value is read:
        return parent.attr.value == "grad"
    return isinstance(parent, cst.Return) or handed_to_optimizer(context, read)


def attribute_gradient_wanted(context: LintContext, owner: cst.ClassDef, attribute: str) -> bool:
    """Whether some method of ``owner`` wants the gradient of ``self.<attribute>``."""
    reads = references.self_attribute_references(context.binder, owner, attribute) or []
    return any(not references.is_bound(context.binder, read) and gradient_wanted(context, read) for read in reads)


def handed_to_optimizer(context: LintContext, read: cst.BaseExpression, depth: int = 0) -> bool:
    binder = context.binder
    node: cst.CSTNode = read
    while (parent := binder.parent(node)) is not None:
        if isinstance(parent, cst.DictElement) and (parent.value is not node or not _is_params_key(parent.key)):
            return False  # a param group's other entries (`"lr": w`) are no parameters
        if isinstance(parent, cst.Arg):
            return _taken_by(context, binder.parent(parent), depth)
        if isinstance(parent, (cst.Assign, cst.AugAssign)):
            targets = parent.targets if isinstance(parent, cst.Assign) else [parent]
            return parent.value is node and any(_list_handed_on(context, target.target, depth) for target in targets)
        if not isinstance(parent, (cst.Element, cst.List, cst.Tuple, cst.Dict, cst.DictElement, cst.StarredElement)):
            return False
        node = parent
    return False


def _taken_by(context: LintContext, call: cst.CSTNode | None, depth: int) -> bool:
    if not isinstance(call, cst.Call):
        return False
    if (context.call_name(call) or "").startswith(_OPTIMIZERS):
        return True
    grown = call.func.value if isinstance(call.func, cst.Attribute) and call.func.attr.value in _GROWING_METHODS else None
    return grown is not None and _list_handed_on(context, grown, depth)


def _list_handed_on(context: LintContext, holder: cst.BaseExpression, depth: int) -> bool:
    """Whether some read of the list ``holder`` names (in its scope) reaches an optimizer."""
    if not isinstance(holder, cst.Name) or depth >= _MAX_DEPTH:
        return False
    binder = context.binder
    bindings = binder.bindings_of(holder.value, binder.scope_of(holder))
    reads = [read for binding in bindings for read in binder.references_to(binding)]
    return any(read is not holder and handed_to_optimizer(context, read, depth + 1) for read in reads)


def _is_params_key(key: cst.BaseExpression) -> bool:
    return isinstance(key, cst.SimpleString) and key.evaluated_value == "params"
