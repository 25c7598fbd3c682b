"""Which values are DTensors holding a pending norm reduction, and where code reads them as
plain numbers.

A module given to ``fully_shard``, ``parallelize_module`` or ``distribute_module`` holds
DTensor parameters, and after backward DTensor gradients. The norm of one such tensor
(``p.grad.norm()``, ``torch.linalg.vector_norm(p.grad)``) comes back as a DTensor whose
placement is a pending norm reduction (``_NormPartial``): its local value is only this
rank's shard's norm. ``.item()``, ``float()``, ``.to_local()``, ``.cpu()``, formatting and
loggers read that local value; ``.full_tensor()`` performs the reduction first.

The total norm ``clip_grad_norm_``/``get_total_norm`` return over such gradients was a
pending reduction too in older releases (pytorch/pytorch#126457, 2024). In PyTorch 2.13 it
comes back ``Replicate()`` (checked on two gloo ranks: the norm reduction strategy redistributes
a pending norm before reducing it again, pytorch/pytorch#159856, August 2025).
:data:`TOTAL_NORM_FIXED_IN` is the first release assumed to carry that change (2.9, from the
pull request's date; only 2.13 was run): a project supporting older releases still reads a
partial total norm.
"""

from __future__ import annotations

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.nodes import argument_for, dotted_name, subtree
from torchcheck.lint.sharding import FSDP2_SHARDING, module_path

DTENSOR_SHARDING = FSDP2_SHARDING | {
    "torch.distributed.tensor.parallel.parallelize_module",
    "torch.distributed.tensor.parallel.api.parallelize_module",
    "torch.distributed.tensor.distribute_module",
    "torch.distributed._tensor.distribute_module",
}
DTENSOR_TEXT = ("fully_shard", "parallelize_module", "distribute_module")
TOTAL_NORMS = frozenset(
    {"torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad.clip_grad_norm_", "torch.nn.utils.get_total_norm"}
)
TOTAL_NORM_FIXED_IN = (2, 9)
_TENSOR_NORMS = frozenset({"torch.norm", "torch.linalg.vector_norm", "torch.linalg.norm", "torch.functional.norm"})
_PARAMETER_METHODS = frozenset({"parameters", "named_parameters"})
# Methods whose result is a number or a plain tensor holding this rank's value.
LOCAL_READS = frozenset({"item", "cpu", "numpy", "to_local"})  # `.tolist()` raises on a DTensor
_NUMBER_BUILTINS = frozenset({"float", "int", "str", "round", "print", "repr"})
_LOGGER_METHODS = frozenset({"log", "log_dict", "add_scalar", "add_scalars", "info", "debug", "warning", "error", "write", "set_postfix"})
_CONTAINERS = (cst.Arg, cst.Dict, cst.DictElement, cst.List, cst.Tuple, cst.Element, cst.StarredDictElement)


def dtensor_modules(context: LintContext, call: cst.Call) -> list[str]:
    """The module paths a call turns into DTensor modules (its first argument)."""
    if context.call_name(call) not in DTENSOR_SHARDING:
        return []
    argument = argument_for(call, 0, "module")
    path = module_path(context, argument.value) if argument is not None and not argument.star else None
    return [path] if path is not None else []


def tensor_norm_subject(context: LintContext, call: cst.Call) -> cst.BaseExpression | None:
    """The tensor a per-tensor norm is taken of: ``g`` in ``g.norm()``, ``torch.norm(g)``,
    ``torch.linalg.vector_norm(g, 2)``; None for anything else (a norm over ``dim`` included)."""
    if argument_for(call, 2, "dim") is not None and context.call_name(call) is not None:
        return None
    if context.call_name(call) in _TENSOR_NORMS:
        argument = argument_for(call, 0, "input") or argument_for(call, 0, "x") or argument_for(call, 0, "A")
        return argument.value if argument is not None and not argument.star else None
    if isinstance(call.func, cst.Attribute) and call.func.attr.value == "norm" and argument_for(call, 1, "dim") is None:
        return call.func.value
    return None


def owner_of_parameter(context: LintContext, tensor: cst.BaseExpression) -> cst.BaseExpression | None:
    """The module expression whose parameter (or its gradient) ``tensor`` is: ``model`` for
    ``p.grad`` with ``p`` drawn from ``model.parameters()`` (a loop or a comprehension, also
    through ``named_parameters()`` and ``enumerate``), ``model.fc`` for ``model.fc.weight.grad``."""
    while isinstance(tensor, cst.Attribute) and tensor.attr.value in ("grad", "data"):
        tensor = tensor.value
    if isinstance(tensor, cst.Call) and isinstance(tensor.func, cst.Attribute) and tensor.func.attr.value == "detach":
        return owner_of_parameter(context, tensor.func.value)
    if isinstance(tensor, cst.Attribute):
        return tensor.value
    if not isinstance(tensor, cst.Name):
        return None
    bindings = context.binder.bindings_before(tensor) or _comprehension_targets(context, tensor)
    if len(bindings) != 1 or not isinstance(bindings[0].node, (cst.For, cst.CompFor)):
        return None
    iterable = bindings[0].node.iter
    if isinstance(iterable, cst.Call) and dotted_name(iterable.func) == "enumerate" and iterable.args:
        iterable = iterable.args[0].value
    if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Attribute) and iterable.func.attr.value in _PARAMETER_METHODS:
        return iterable.func.value
    return None


def _comprehension_targets(context: LintContext, name: cst.Name) -> list:
    """The ``for`` clauses of a comprehension that bind ``name`` where the comprehension's
    element reads it: the element comes first in the text, so no binding is "before" it."""
    return [binding for binding in context.binder.bindings_of(name.value, context.binder.scope_of(name)) if isinstance(binding.node, cst.CompFor)]


def parameter_owners(context: LintContext, expression: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The modules whose ``.parameters()``/``.named_parameters()`` an argument reads, directly
    or through a name bound to them once."""
    owners = []
    for node in subtree(expression):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in _PARAMETER_METHODS:
            owners.append(node.func.value)
        elif isinstance(node, cst.Name) and node is expression:
            bindings = context.binder.bindings_before(node)
            if len(bindings) == 1 and isinstance(bindings[0].node, cst.Assign):
                owners.extend(parameter_owners(context, bindings[0].node.value))
    return owners


def local_read(context: LintContext, value: cst.BaseExpression) -> cst.CSTNode | None:
    """The node that reads ``value`` as this rank's number: ``value.item()`` and the other
    :data:`LOCAL_READS`, ``float(value)``, an f-string or ``%`` formatting, a logger call it is
    handed to (``wandb.log({"grad_norm": value})``); None when it is not read so."""
    parent = context.binder.parent(value)
    while isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation)) and not _formats(parent):
        value, parent = parent, context.binder.parent(parent)  # `(norm ** 2).item()`: arithmetic keeps a DTensor
    if isinstance(parent, cst.Attribute) and parent.value is value and parent.attr.value in LOCAL_READS:
        call = context.binder.parent(parent)
        return call if isinstance(call, cst.Call) and call.func is parent else None
    if isinstance(parent, cst.FormattedStringExpression):
        return context.binder.parent(parent)
    if isinstance(parent, cst.BinaryOperation) and _formats(parent):
        return parent if parent.right is value else None
    node: cst.CSTNode | None = value
    while isinstance(parent, _CONTAINERS):
        node, parent = parent, context.binder.parent(parent)
    if isinstance(parent, cst.Call) and node is not parent.func and _logs_or_converts(parent):
        return parent
    return None


def _formats(operation: cst.BinaryOperation | cst.UnaryOperation) -> bool:
    """``"%.3f" % value``: string formatting, not arithmetic."""
    modulo = isinstance(operation, cst.BinaryOperation) and isinstance(operation.operator, cst.Modulo)
    return modulo and isinstance(operation.left, (cst.SimpleString, cst.ConcatenatedString))  # type: ignore[union-attr]


def _logs_or_converts(call: cst.Call) -> bool:
    if isinstance(call.func, cst.Name):
        return call.func.value in _NUMBER_BUILTINS
    if isinstance(call.func, cst.Attribute):
        return call.func.attr.value in _LOGGER_METHODS or call.func.attr.value == "format"
    return False


def narrowed_to_dtensor(context: LintContext, name: str, scope: cst.CSTNode) -> bool:
    """Whether ``scope`` tests ``isinstance(name, DTensor)`` (the read then handles both)."""
    for node in subtree(scope):
        if isinstance(node, cst.Call) and dotted_name(node.func) == "isinstance" and len(node.args) == 2:
            subject, classes = node.args[0].value, node.args[1].value
            if isinstance(subject, cst.Name) and subject.value == name and "DTensor" in (dotted_name(classes) or ""):
                return True
    return False
