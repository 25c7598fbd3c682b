from __future__ import annotations

from dataclasses import replace

import libcst as cst

from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid
from torchcheck.rules.numerics._common import is_one, replacement_call, unary_call

SOFTPLUS_MESSAGE = "`log(1 + exp(x))` overflows to `inf` for large `x`; use `torch.nn.functional.softplus(x)`"


class LogOfOnePlus(Rule):
    """
    ## What it does
    Checks for `torch.log(1 + x)` and `torch.log(x + 1)` (also with `1.0`, and the
    method form `(1 + x).log()` on a tensor).

    ## Why is this bad?
    For `|x|` much smaller than 1, `1 + x` is rounded to a number near 1 and loses most of
    `x`'s digits before the logarithm is taken: in float32 the result has only three or four
    correct digits for `x` around `1e-4` and is exactly `0` once `|x|` drops below about
    `3e-8`; in float16 the error is already about 2% for `x = 1e-3`. `torch.log1p(x)`
    computes the same function without forming `1 + x` and is accurate over the whole
    range, at the same cost.

    `torch.log(1 + torch.exp(x))` gets different advice: it is the softplus
    function, and `exp` overflows to `inf` for `x` above about 88 in float32 (11 in
    float16). `torch.nn.functional.softplus(x)` computes it without overflow.

    ## Example
    ```python
    import torch

    log_counts = torch.log(1 + counts)
    relative = torch.log(delta / scale + 1.0)
    ```

    Use instead:
    ```python
    import torch

    log_counts = torch.log1p(counts)
    relative = torch.log1p(delta / scale)
    ```

    ## Fix safety
    The fix rewrites the call to `torch.log1p(x)` (`x.log1p()` for the method form). It is
    unsafe only in the sense that results change: they become more accurate for small `x`,
    which can break tests that compare against recorded values bit for bit. Dtypes, shapes
    and gradients are unchanged. The `softplus` case has no fix, because
    `F.softplus` needs `torch.nn.functional` imported.

    ## References
    - [`torch.log1p`](https://pytorch.org/docs/stable/generated/torch.log1p.html)
    - [`torch.nn.functional.softplus`](https://pytorch.org/docs/stable/generated/torch.nn.functional.softplus.html)
    """

    code = "TCK912"
    name = "log-of-one-plus"
    message = "`torch.log(1 + x)` loses precision for small `x`; use `torch.log1p(x)`"
    fix_title = "Use `torch.log1p(x)`"
    default_enabled = False
    fix_safety = FixSafety.UNSAFE
    required_text = ("log(",)
    torchfix_codes = ("TOR106",)

    VALID = (
        Valid(
            """
import math
import numpy as np
import torch
a = torch.log1p(x)
b = torch.log(1 + x + y)
c = torch.log(2 + x)
d = np.log(1 + x)
e = math.log(1 + rate)
f = torch.log(1 - p)
g = torch.log(torch.arange(1, n + 1))
"""
        ),
        Valid(
            """
import torch
def scale(positions, beta):
    return 1 + beta * torch.log(positions + 2)
def method(x):
    return (1 + x).log()
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
a = torch.log(1 + counts)  # TCK912
b = torch.log(x + 1.0)  # TCK912
c = torch.log(delta / (scale + eps) + 1.0)  # TCK912
d = torch.log(1.0 + (a * b))  # TCK912
""",
            expected_replacement="""
import torch
a = torch.log1p(counts)  # TCK912
b = torch.log1p(x)  # TCK912
c = torch.log1p(delta / (scale + eps))  # TCK912
d = torch.log1p(a * b)  # TCK912
""",
        ),
        Invalid(
            """
import torch as T
from torch import log
from torch import Tensor
def f(x: Tensor, y):
    a = T.log(1 + y)  # TCK912
    b = log(x + 1)  # TCK912
    c = (1 + x).log()  # TCK912
    d = (x * 2 + 1).log()  # TCK912
    return a, b, c, d
""",
            expected_replacement="""
import torch as T
from torch import log
from torch import Tensor
def f(x: Tensor, y):
    a = T.log1p(y)  # TCK912
    b = log(x + 1)  # TCK912
    c = x.log1p()  # TCK912
    d = (x * 2).log1p()  # TCK912
    return a, b, c, d
""",
        ),
        Invalid(
            """
import torch
softplus = torch.where(g > 20.0, g, torch.log(1.0 + torch.exp(g)))  # TCK912
"""
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        match = unary_call(self.context, node, "log")
        if match is None or not isinstance(match.operand, cst.BinaryOperation):
            return
        total = match.operand
        if not isinstance(total.operator, cst.Add):
            return
        if is_one(total.left):
            x = total.right
        elif is_one(total.right):
            x = total.left
        else:
            return
        if unary_call(self.context, x, "exp") is not None:
            self.report(node, SOFTPLUS_MESSAGE)
            return
        replacement = replacement_call(self.context, replace(match, operand=x), "log1p")
        if replacement is None:
            self.report(node)
        else:
            self.report(node, replacement=replacement)
