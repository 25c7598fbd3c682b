from __future__ import annotations

import libcst as cst

from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid
from torchcheck.rules.numerics._common import (
    UnaryCall,
    drops_parentheses,
    is_one,
    method_receiver,
    replacement_call,
    torch_function_operand,
    unary_call,
)


class ReciprocalOfSqrt(Rule):
    """
    ## What it does
    Checks for `1 / torch.sqrt(x)` (also `1.0 / ...`, `torch.sqrt(x).reciprocal()`,
    `torch.reciprocal(torch.sqrt(x))`, and the method forms `1 / x.sqrt()` and
    `x.sqrt().reciprocal()` on a tensor).

    ## Why is this bad?
    The two-step form runs two elementwise kernels and materializes the intermediate
    `sqrt(x)` tensor, which autograd keeps alive for the backward pass when `x` requires
    grad. `torch.rsqrt(x)` computes the inverse square root in one kernel with one output
    tensor. The difference matters where the expression runs on every step over large
    tensors, such as the scale factors of normalization layers. Both forms give `inf` for
    `0` and `nan` for negative inputs.

    ## Example
    ```python
    import torch

    inv_std = 1.0 / torch.sqrt(var + eps)
    ```

    Use instead:
    ```python
    import torch

    inv_std = torch.rsqrt(var + eps)
    ```

    ## Fix safety
    The fix rewrites the expression to `torch.rsqrt(x)` (`x.rsqrt()` for the method form).
    It is unsafe because results may differ in the last bits on some backends (on CUDA,
    `rsqrt` is accurate to 2 units in the last place, while `1 / sqrt(x)` rounds twice),
    which can break tests that compare against recorded values bit for bit. Dtypes,
    shapes and gradients are otherwise unchanged.

    ## References
    - [`torch.rsqrt`](https://pytorch.org/docs/stable/generated/torch.rsqrt.html)
    - [`torch.sqrt`](https://pytorch.org/docs/stable/generated/torch.sqrt.html)
    """

    code = "TCK915"
    name = "reciprocal-of-sqrt"
    message = "`1 / torch.sqrt(x)` runs two kernels; use `torch.rsqrt(x)`"
    fix_title = "Use `torch.rsqrt(x)`"
    default_enabled = False
    fix_safety = FixSafety.UNSAFE
    required_text = ("sqrt(",)

    VALID = (
        Valid(
            """
import math
import numpy as np
import torch
scale = 1 / math.sqrt(head_dim)
a = 1 / np.sqrt(d)
b = torch.rsqrt(var + eps)
c = 2 / torch.sqrt(x)
d = x / torch.sqrt(var + eps)
e = 1 / torch.sqrt(x) ** 2
"""
        ),
        Valid(
            """
def scale(dim):
    return 1.0 / dim.sqrt()
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
inv_std = 1.0 / torch.sqrt(var + eps)  # TCK915
y = x * (1 / torch.sqrt(var))  # TCK915
z = torch.sqrt(var).reciprocal()  # TCK915
w = torch.reciprocal(torch.sqrt(var))  # TCK915
""",
            expected_replacement="""
import torch
inv_std = torch.rsqrt(var + eps)  # TCK915
y = x * torch.rsqrt(var)  # TCK915
z = torch.rsqrt(var)  # TCK915
w = torch.rsqrt(var)  # TCK915
""",
        ),
        Invalid(
            """
import torch
from torch import Tensor, sqrt
def normalize(x: Tensor, var: Tensor, eps: float):
    a = x * (1 / (var + eps).sqrt())  # TCK915
    b = var.sqrt().reciprocal()  # TCK915
    c = 1 / sqrt(var)  # TCK915
    return a, b, c
""",
            expected_replacement="""
import torch
from torch import Tensor, sqrt
def normalize(x: Tensor, var: Tensor, eps: float):
    a = x * (var + eps).rsqrt()  # TCK915
    b = var.rsqrt()  # TCK915
    c = torch.rsqrt(var)  # TCK915
    return a, b, c
""",
        ),
    )

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, cst.Divide) and is_one(node.left):
            self._check(node, unary_call(self.context, node.right, "sqrt"))

    def visit_Call(self, node: cst.Call) -> None:
        inner = method_receiver(node, "reciprocal")
        if inner is None:
            inner = torch_function_operand(self.context, node, "reciprocal")
        if inner is not None:
            # `torch.sqrt(x)` is a tensor, so `.reciprocal()` on it is the tensor method
            self._check(node, unary_call(self.context, inner, "sqrt"))

    def _check(self, node: cst.BaseExpression, sqrt: UnaryCall | None) -> None:
        if sqrt is None:
            return
        replacement = replacement_call(self.context, sqrt, "rsqrt")
        if replacement is None:
            self.report(node)
            return
        if not drops_parentheses(node):
            replacement = replacement.with_changes(lpar=node.lpar, rpar=node.rpar)
        self.report(node, replacement=replacement)
