"""Matching `torch.fn(x)` / `x.fn()` and spelling the single function that replaces a pattern."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from torchcheck.lint.context import LintContext


@dataclass(frozen=True)
class UnaryCall:
    """``torch.<fn>(operand)`` (``method`` False) or ``operand.<fn>()`` (``method`` True)."""

    call: cst.Call
    operand: cst.BaseExpression
    method: bool


def is_one(expression: cst.BaseExpression) -> bool:
    """A literal ``1`` / ``1.0`` / ``1.``."""
    return isinstance(expression, (cst.Integer, cst.Float)) and expression.evaluated_value == 1


def torch_function_operand(
    context: LintContext, expression: cst.BaseExpression, function: str
) -> cst.BaseExpression | None:
    """``x`` for ``torch.<function>(x)`` called with that single argument (or ``input=x``)."""
    if not isinstance(expression, cst.Call) or context.call_name(expression) != f"torch.{function}":
        return None
    if len(expression.args) != 1:
        return None
    argument = expression.args[0]
    if argument.star or (argument.keyword is not None and argument.keyword.value != "input"):
        return None
    return argument.value


def method_receiver(expression: cst.BaseExpression, method: str) -> cst.BaseExpression | None:
    """``x`` for ``x.<method>()`` without arguments."""
    if (
        isinstance(expression, cst.Call)
        and not expression.args
        and isinstance(expression.func, cst.Attribute)
        and expression.func.attr.value == method
    ):
        return expression.func.value
    return None


def unary_call(context: LintContext, expression: cst.BaseExpression, function: str) -> UnaryCall | None:
    """``torch.<function>(x)``, or ``x.<function>()`` when ``x`` is known to be a tensor."""
    if not isinstance(expression, cst.Call):
        return None
    operand = torch_function_operand(context, expression, function)
    if operand is not None:
        return UnaryCall(expression, operand, method=False)
    receiver = method_receiver(expression, function)
    if receiver is not None and context.is_tensor(receiver):
        return UnaryCall(expression, receiver, method=True)
    return None


def replacement_call(context: LintContext, match: UnaryCall, function: str) -> cst.Call | None:
    """``torch.<function>(operand)`` spelled like the matched call (``T.log`` -> ``T.log1p``,
    ``x.log()`` -> ``x.log1p()``), or None when ``torch`` has no name in scope."""
    if match.method:
        return cst.Call(func=cst.Attribute(value=_as_receiver(match.operand), attr=cst.Name(function)))
    func = match.call.func
    torch_module: cst.BaseExpression | None = None
    if isinstance(func, cst.Attribute) and context.qualified_name(func.value) == "torch":
        torch_module = func.value.deep_clone()
    elif context.qualified_name(cst.Name("torch")) == "torch":
        torch_module = cst.Name("torch")  # `from torch import log`: spell the new name through `torch`
    if torch_module is None:
        return None
    function_name = cst.Attribute(value=torch_module, attr=cst.Name(function))
    return cst.Call(func=function_name, args=[cst.Arg(_as_argument(match.operand))])


def _as_argument(expression: cst.BaseExpression) -> cst.BaseExpression:
    """Drop redundant parentheses (``1 + (a * b)`` -> ``log1p(a * b)``); keep those a tuple,
    generator or yield needs."""
    if expression.lpar and not isinstance(expression, (cst.Tuple, cst.GeneratorExp, cst.Yield)):
        return expression.with_changes(lpar=[], rpar=[])
    return expression


def _as_receiver(expression: cst.BaseExpression) -> cst.BaseExpression:
    """Parenthesize an operand that cannot take ``.method()`` as it is (``a * b`` -> ``(a * b)``)."""
    if expression.lpar or isinstance(expression, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
        return expression
    return expression.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def drops_parentheses(expression: cst.BaseExpression) -> bool:
    """Whether the parentheses around ``expression`` can go once it becomes a call (an atom):
    yes, unless they hold a line break or a comment."""
    return all(isinstance(paren.whitespace_after, cst.SimpleWhitespace) for paren in expression.lpar) and all(
        isinstance(paren.whitespace_before, cst.SimpleWhitespace) for paren in expression.rpar
    )

