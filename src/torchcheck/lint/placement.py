"""Whether a tensor expression puts its tensor on a device.

A factory given ``device=`` (other than ``"cpu"``), ``.cuda()``, or ``.to(...)`` given a device
or another tensor (not only a dtype) places the tensor; so does any of these along a chain of
method calls, indexing, arithmetic and torch ops (``torch.tril(torch.ones(n, n, device=d))``).

TCK606 asks it of the tensors a module stores in ``__init__``. The rules that look at device
moves could ask the same question instead of their own ``.to()`` argument checks:
TCK202 (``devices/transfer_after_construction``, ``_target_device``) and
``training/requires_grad_lost_by_transfer`` (``_names_a_device``).
"""

from __future__ import annotations

import libcst as cst

from torchcheck.lint import torch_api
from torchcheck.lint.context import LintContext
from torchcheck.lint.kinds import Kind
from torchcheck.lint.nodes import is_none, keyword_argument


def names_cpu(expression: cst.BaseExpression) -> bool:
    """The string literal ``"cpu"``."""
    return isinstance(expression, cst.SimpleString) and expression.evaluated_value == "cpu"


def moves_to_device(context: LintContext, call: cst.Call) -> bool:
    """``.to(device)``, ``.to(other_tensor)``, ``.to(device, dtype)``: not ``.to(torch.float16)``
    nor ``.to("cpu")``. ``call`` is a ``.to(...)`` call."""
    first = call.args[0] if call.args else None
    if first is None or first.star or names_cpu(first.value):
        return False
    return first.keyword.value in ("device", "other") if first.keyword is not None else context.kind_of(first.value) is not Kind.DTYPE


def placed_on_device(context: LintContext, value: cst.BaseExpression) -> bool:
    """The tensor ``value`` builds is put on a device (see the module docstring); for a
    conditional, every branch that is not ``None`` is."""
    if isinstance(value, cst.BinaryOperation):
        return placed_on_device(context, value.left) or placed_on_device(context, value.right)
    if isinstance(value, cst.Subscript):
        return placed_on_device(context, value.value)
    if isinstance(value, cst.IfExp):
        branches = [branch for branch in (value.body, value.orelse) if not is_none(branch)]
        return all(placed_on_device(context, branch) for branch in branches)
    if not isinstance(value, cst.Call):
        return False
    if isinstance(value.func, cst.Attribute) and context.call_name(value) is None:
        method = value.func.attr.value
        return method == "cuda" or (method == "to" and moves_to_device(context, value)) or placed_on_device(context, value.func.value)
    if context.call_name(value) in torch_api.TENSOR_OPS:
        return any(placed_on_device(context, argument.value) for argument in value.args if argument.keyword is None)
    device = keyword_argument(value, "device")
    return device is not None and not is_none(device.value) and not names_cpu(device.value)
