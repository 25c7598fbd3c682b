"""Loss-normalisation facts: whether a loss value is a mean over a data-dependent number of
elements (a *token mean*), so that averaging several such means is not the mean over all of
them.

A loss is a token mean when it is:

- ``F.cross_entropy``/``F.nll_loss`` (or a ``nn.CrossEntropyLoss``/``nn.NLLLoss`` criterion)
  with the default ``reduction="mean"`` and either ``ignore_index`` passed or labels padded
  with ``-100`` (the default ``ignore_index``) in the file;
- a masked mean, ``(per_token * mask).sum() / mask.sum()``;
- a model output's ``.loss`` (``outputs.loss``, ``outputs["loss"]``) when the file pads its
  labels with ``-100``;
- a linear combination of one of these (``alpha * ce + (1 - alpha) * kl``), or what a helper
  of the file returns.

Facts that need qualified names are gathered during the walk (:class:`LossFacts`), the rest
is answered after it through the binder (:func:`is_token_mean`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from torchcheck.lint.binder import Binder
from torchcheck.lint.context import LintContext
from torchcheck.lint.nodes import dotted_name, keyword_argument, subtree

TOKEN_LOSS_FUNCTIONS = frozenset({"torch.nn.functional.cross_entropy", "torch.nn.functional.nll_loss"})
TOKEN_LOSS_CLASSES = frozenset(
    {"torch.nn.CrossEntropyLoss", "torch.nn.NLLLoss", "torch.nn.modules.loss.CrossEntropyLoss", "torch.nn.modules.loss.NLLLoss"}
)
# Calls that fill labels with the ignore value: `labels.masked_fill(pad, -100)`, `torch.where(m, -100, y)`.
_FILLING_METHODS = frozenset({"masked_fill", "masked_fill_", "fill_", "where", "full", "full_like", "new_full"})
_COUNTING_METHODS = frozenset({"sum", "count_nonzero", "nansum"})
_MAX_DEPTH = 8


@dataclass
class LossFacts:
    """What the walk learnt about losses in one file."""

    token_mean_calls: set[int] = field(default_factory=set)  # ids of loss calls that average over tokens
    token_mean_criteria: set[str] = field(default_factory=set)  # names bound to such criteria
    pads_labels: bool = False  # the file sets labels to -100 (or uses `label_pad_token_id`)
    helpers: dict[int, cst.FunctionDef] = field(default_factory=dict)  # call id -> the def it runs

    def note_call(self, context: LintContext, call: cst.Call) -> None:
        qualified = context.call_name(call)
        if qualified in TOKEN_LOSS_FUNCTIONS and _averages(call):
            self.token_mean_calls.add(id(call))
        elif _pads_with_ignore_value(call) or keyword_argument(call, "label_pad_token_id") is not None:
            self.pads_labels = True
        elif context.flow.loops:
            resolved = context.resolve_call(call)
            if resolved is not None:
                self.helpers[id(call)] = resolved.function

    def note_assignment(self, context: LintContext, node: cst.Assign) -> None:
        value = node.value
        if isinstance(value, cst.Call) and context.call_name(value) in TOKEN_LOSS_CLASSES and _averages(value):
            self.token_mean_criteria.update(name for target in node.targets if (name := dotted_name(target.target)))
        if _is_ignore_value(value) and any(isinstance(target.target, cst.Subscript) for target in node.targets):
            self.pads_labels = True  # labels[labels == pad_id] = -100


def _is_ignore_value(expression: cst.BaseExpression) -> bool:
    return (
        isinstance(expression, cst.UnaryOperation)
        and isinstance(expression.operator, cst.Minus)
        and isinstance(expression.expression, cst.Integer)
        and expression.expression.value == "100"
    )


def _pads_with_ignore_value(call: cst.Call) -> bool:
    method = call.func.attr.value if isinstance(call.func, cst.Attribute) else None
    return method in _FILLING_METHODS and any(_is_ignore_value(argument.value) for argument in call.args)


def _averages(call: cst.Call) -> bool:
    """The loss call (or criterion) keeps the default ``reduction="mean"``; ``ignore_index``
    is checked by the caller with the file's padding."""
    reduction = keyword_argument(call, "reduction")
    if reduction is None:
        return True
    return isinstance(reduction.value, cst.SimpleString) and reduction.value.evaluated_value == "mean"


def _ignores(call: cst.Call) -> bool:
    return keyword_argument(call, "ignore_index") is not None


def is_token_mean(expression: cst.BaseExpression, facts: LossFacts, binder: Binder, depth: int = 0) -> bool:
    """Whether ``expression`` may be a mean over a data-dependent number of tokens (see the
    module docstring); False when unknown."""
    if depth > _MAX_DEPTH:
        return False
    again = lambda inner: is_token_mean(inner, facts, binder, depth + 1)  # noqa: E731
    if isinstance(expression, cst.Name):
        return any(again(value) for value in _assigned_values(expression, binder))
    if isinstance(expression, cst.BinaryOperation):
        if isinstance(expression.operator, cst.Divide) and _is_sum(expression.left) and _is_count(expression.right, binder):
            return True  # (per_token * mask).sum() / mask.sum()
        if isinstance(expression.operator, (cst.Add, cst.Subtract, cst.Multiply)):
            return again(expression.left) or again(expression.right)
        if isinstance(expression.operator, cst.Divide):
            return again(expression.left)
        return False
    if isinstance(expression, cst.Call):
        return _is_token_mean_call(expression, facts, binder, again)
    if isinstance(expression, cst.Attribute) and expression.attr.value == "loss":
        return facts.pads_labels and isinstance(expression.value, (cst.Call, cst.Name))
    if isinstance(expression, cst.Subscript) and isinstance(expression.value, (cst.Call, cst.Name)):
        index = expression.slice[0].slice if len(expression.slice) == 1 else None
        key = index.value if isinstance(index, cst.Index) else None
        return facts.pads_labels and isinstance(key, cst.SimpleString) and key.evaluated_value == "loss"
    return False


def _is_token_mean_call(call: cst.Call, facts: LossFacts, binder: Binder, again) -> bool:
    if id(call) in facts.token_mean_calls:
        return _ignores(call) or facts.pads_labels
    if dotted_name(call.func) in facts.token_mean_criteria:
        return True  # a criterion's ignore_index defaults to -100: padding or not, it was built to mask
    helper = facts.helpers.get(id(call))
    if helper is not None:
        returns = [node for node in subtree(helper.body, _nested_scope) if isinstance(node, cst.Return)]
        return any(node.value is not None and again(node.value) for node in returns)
    method = call.func.attr.value if isinstance(call.func, cst.Attribute) else None
    if method in ("float", "mean", "clone", "to") and isinstance(call.func, cst.Attribute):
        return again(call.func.value)  # `.mean()` of a token-mean scalar is the same scalar
    return False


def _nested_scope(node: cst.CSTNode) -> bool:
    return isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda))


def _assigned_values(name: cst.Name, binder: Binder) -> list[cst.BaseExpression]:
    """The values assigned to ``name`` that may reach it (``x = value``, ``x += value``),
    except the statement that reads it (``loss = loss / n`` reads the earlier ``loss``)."""
    around = set(map(id, binder.ancestors(name)))
    values = []
    for binding in binder.bindings_before(name):
        node = binding.node
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)) and id(node) not in around and node.value is not None:
            values.append(node.value)
    return values


def _is_sum(expression: cst.BaseExpression) -> bool:
    if not isinstance(expression, cst.Call):
        return False
    func = expression.func
    return (isinstance(func, cst.Attribute) and func.attr.value in _COUNTING_METHODS) or dotted_name(func) == "torch.sum"


def _is_count(expression: cst.BaseExpression, binder: Binder, depth: int = 0) -> bool:
    """A data-dependent element count: ``mask.sum()``, ``mask.sum().clamp(min=1)``,
    ``(labels != -100).sum()``, or a name bound to one."""
    if depth > 3:
        return False
    if isinstance(expression, cst.Name):
        return any(_is_count(value, binder, depth + 1) for value in _assigned_values(expression, binder))
    if _is_sum(expression):
        return True
    if isinstance(expression, cst.Call) and isinstance(expression.func, cst.Attribute):
        return _is_count(expression.func.value, binder, depth + 1)  # .clamp(min=1), .float()
    return False
