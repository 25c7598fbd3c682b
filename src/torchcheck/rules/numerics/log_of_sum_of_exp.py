from __future__ import annotations

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.nodes import method_call
from torchcheck.lint.rule import Invalid, Rule, Valid
from torchcheck.rules.numerics._common import (
    method_receiver,
    torch_function_operand,
    unary_call,
)


class LogOfSumOfExp(Rule):
    """
    ## What it does
    Checks for `torch.log(torch.sum(torch.exp(x), dim))` and its method spellings such as
    `torch.exp(x).sum(dim).log()` and `x.exp().sum(dim).log()` on a tensor.

    ## Why is this bad?
    `exp` overflows to `inf` for `x` above about 88 in float32 and bfloat16 (about 11 in
    float16) and underflows to `0` below about -104 in float32, so the result becomes `inf`
    or `-inf` although the log-sum-exp itself is a moderate number. Logits,
    log-probabilities and energies routinely reach these values. `torch.logsumexp(x, dim)`
    subtracts the maximum before exponentiating, so it returns an accurate, finite result
    for any finite input.

    Expressions that already shift the exponent, `torch.exp(x - m)`, are taken to be a
    hand-written stable version and are not reported.

    ## Example
    ```python
    import torch

    log_partition = torch.log(torch.sum(torch.exp(scores), dim=-1))
    ```

    Use instead:
    ```python
    import torch

    log_partition = torch.logsumexp(scores, dim=-1)
    ```

    ## Fix safety
    There is no fix: `torch.logsumexp` requires `dim`, while `torch.sum` without one sums
    over all elements, and `keepdim=`/`dtype=` arguments need to be carried over by hand.

    ## References
    - [`torch.logsumexp`](https://pytorch.org/docs/stable/generated/torch.logsumexp.html)
    - [`torch.special.logsumexp`](https://pytorch.org/docs/stable/special.html#torch.special.logsumexp)
    """

    code = "TCK914"
    name = "log-of-sum-of-exp"
    message = "`log(sum(exp(x)))` overflows for large `x`; use `torch.logsumexp(x, dim)`"
    default_enabled = False
    required_text = ("exp(",)

    VALID = (
        Valid(
            """
import numpy as np
import torch
a = torch.logsumexp(scores, dim=-1)
b = np.log(np.sum(np.exp(scores), axis=-1))
m = scores.amax(dim=-1, keepdim=True)
c = torch.log(torch.sum(torch.exp(scores - m), dim=-1, keepdim=True)) + m
d = torch.log(torch.exp(x).sum(-1) + eps)
e = torch.log(torch.exp(x).mean(-1))
"""
        ),
        Valid(
            """
def partition(energies):
    return energies.exp().sum(-1).log()
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
a = torch.log(torch.sum(torch.exp(scores), dim=-1))  # TCK914
b = torch.exp(scores).sum(-1).log()  # TCK914
c = torch.log(torch.exp(-distances).sum(dim=1, keepdim=True))  # TCK914
d = torch.log(torch.sum(torch.exp(x)))  # TCK914
"""
        ),
        Invalid(
            """
import torch
def partition(energies: torch.Tensor):
    return energies.exp().sum(-1).log()  # TCK914
"""
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        total = torch_function_operand(self.context, node, "log")
        if total is None:
            total = method_receiver(node, "log")
        if total is not None and _sum_of_exp(self.context, total):
            self.report(node)


def _sum_of_exp(context: LintContext, expression: cst.BaseExpression) -> bool:
    """``torch.sum(torch.exp(x), ...)`` or ``<exp>.sum(...)``, where the exponent is not shifted."""
    if not isinstance(expression, cst.Call):
        return False
    if context.call_name(expression) == "torch.sum":
        positional = [argument for argument in expression.args if argument.keyword is None]
        summed = positional[0].value if positional and not positional[0].star else None
    else:
        receiver_method = method_call(expression)
        summed = receiver_method[0] if receiver_method is not None and receiver_method[1] == "sum" else None
    if summed is None:
        return False
    exponential = unary_call(context, summed, "exp")
    if exponential is None:
        return False
    exponent = exponential.operand
    shifted = isinstance(exponent, cst.BinaryOperation) and isinstance(exponent.operator, cst.Subtract)
    return not shifted
