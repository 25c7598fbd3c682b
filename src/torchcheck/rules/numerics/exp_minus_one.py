from __future__ import annotations

import libcst as cst

from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid
from torchcheck.rules.numerics._common import (
    drops_parentheses,
    is_one,
    replacement_call,
    unary_call,
)


class ExpMinusOne(Rule):
    """
    ## What it does
    Checks for `torch.exp(x) - 1` (also `- 1.0`, and `x.exp() - 1` on a tensor).

    ## Why is this bad?
    For `|x|` much smaller than 1, `exp(x)` is a number near 1, and subtracting 1 cancels
    its leading digits: what is left is mostly rounding error. In float32,
    `torch.exp(x) - 1` is off by about 0.1% for `x = 1e-5` and is exactly `0` for `|x|`
    below about `3e-8`. `torch.expm1(x)` computes the same function without the
    cancellation and is accurate over the whole range, at the same cost.

    ## Example
    ```python
    import torch

    growth = torch.exp(rate * t) - 1
    ```

    Use instead:
    ```python
    import torch

    growth = torch.expm1(rate * t)
    ```

    ## Fix safety
    The fix rewrites the subtraction to `torch.expm1(x)` (`x.expm1()` for the method form).
    It is unsafe only in the sense that results change: they become more accurate for
    small `x`, which can break tests that compare against recorded values bit for bit.
    Dtypes, shapes and gradients are unchanged.

    ## References
    - [`torch.expm1`](https://pytorch.org/docs/stable/generated/torch.expm1.html)
    - [`torch.special.expm1`](https://pytorch.org/docs/stable/special.html#torch.special.expm1)
    """

    code = "TCK913"
    name = "exp-minus-one"
    message = "`torch.exp(x) - 1` loses precision for small `x`; use `torch.expm1(x)`"
    fix_title = "Use `torch.expm1(x)`"
    default_enabled = False
    fix_safety = FixSafety.UNSAFE
    required_text = ("exp(",)
    torchfix_codes = ("TOR107",)

    VALID = (
        Valid(
            """
import math
import numpy as np
import torch
a = torch.expm1(x)
b = 2 * torch.exp(x) - 1
c = torch.exp(x) - 2
d = np.exp(x) - 1
e = math.exp(x) - 1
f = 1 - torch.exp(-x)
g = torch.exp(x - 1)
"""
        ),
        Valid(
            """
import torch
def elu(x, alpha):
    return torch.where(x > 0, x, alpha * (x.exp() - 1))
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
a = torch.exp(rate * t) - 1  # TCK913
b = scale * (torch.exp(x) - 1.0)  # TCK913
c = torch.exp(x) - 1 - y  # TCK913
""",
            expected_replacement="""
import torch
a = torch.expm1(rate * t)  # TCK913
b = scale * torch.expm1(x)  # TCK913
c = torch.expm1(x) - y  # TCK913
""",
        ),
        Invalid(
            """
import torch
from torch import exp
def elu(x: torch.Tensor, alpha):
    a = torch.where(x > 0, x, alpha * (x.exp() - 1))  # TCK913
    b = exp(x) - 1  # TCK913
    return a, b
""",
            expected_replacement="""
import torch
from torch import exp
def elu(x: torch.Tensor, alpha):
    a = torch.where(x > 0, x, alpha * x.expm1())  # TCK913
    b = torch.expm1(x)  # TCK913
    return a, b
""",
        ),
    )

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if not isinstance(node.operator, cst.Subtract) or not is_one(node.right):
            return
        match = unary_call(self.context, node.left, "exp")
        if match is None:
            return
        replacement = replacement_call(self.context, match, "expm1")
        if replacement is None:
            self.report(node)
            return
        if not drops_parentheses(node):
            replacement = replacement.with_changes(lpar=node.lpar, rpar=node.rpar)
        self.report(node, replacement=replacement)
