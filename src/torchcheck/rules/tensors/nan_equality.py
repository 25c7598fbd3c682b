from __future__ import annotations

import libcst as cst

from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid, fix_safety_on

_NAN_CONSTANTS = frozenset(
    {"math.nan", "torch.nan", "numpy.nan", "numpy.NaN", "numpy.NAN", "cmath.nan"}
)


class NanEquality(Rule):
    """
    ## What it does
    Checks for comparisons with NaN using `==` or `!=`: `x == float("nan")`,
    `x != math.nan`, `x == torch.nan`, `x == np.nan`.

    ## Why is this bad?
    NaN is not equal to anything, itself included. `x == nan` is always `False` (for a
    tensor: a tensor of all `False`) and `x != nan` always `True`, so a check meant to
    catch a diverged loss never fires. Test for NaN with `torch.isnan(x)` (tensors),
    `math.isnan(x)` (Python floats) or `np.isnan(x)` (arrays).

    ## Example
    ```python
    import torch

    if (loss == float("nan")).any():
        raise RuntimeError("loss diverged")
    ```

    Use instead:
    ```python
    import torch

    if torch.isnan(loss).any():
        raise RuntimeError("loss diverged")
    ```

    ## Fix safety
    The fix replaces `x == nan` with `torch.isnan(x)` and `x != nan` with
    `~torch.isnan(x)`: for a tensor the result has the same shape and dtype and finally
    means what the comparison was meant to. It is offered only when `x` is known to be a
    tensor and the file imports `torch` under that name. It is safe when the code shows
    that `x` is a tensor (built by a torch function, or checked with `isinstance`); when
    only a type annotation says so it is unsafe, because `torch.isnan` raises on a Python
    float or a NumPy array (use `math.isnan` or `np.isnan` there).

    ## References
    - [`torch.isnan`](https://pytorch.org/docs/stable/generated/torch.isnan.html)
    - [`math.isnan`](https://docs.python.org/3/library/math.html#math.isnan)
    """

    code = "TCK702"
    name = "nan-equality"
    message = "Comparison with NaN is always False (`!=`: always True); use `torch.isnan()` or `math.isnan()`"
    fix_title = "Use `torch.isnan()`"
    fix_safety = FixSafety.SAFE
    required_text = ("nan", "NaN", "NAN")

    VALID = (
        Valid(
            """
import math
import torch
bad = torch.isnan(loss)
if math.isnan(value):
    pass
"""
        ),
        Valid(
            """
import torch
x = torch.randn(3)
y = torch.nan_to_num(x, nan=0.0)
mask = x != x
filled = torch.full((3,), float("nan"))
same = x == float("inf")
"""
        ),
        Valid(
            """
import numpy as np
nan = np.nan
if mode == "nan":
    pass
def nan(x):
    return x
flag = value == nan(3)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
loss = torch.randn(3).sum()
if loss == float("nan"):  # TCK702
    raise RuntimeError("diverged")
""",
            expected_replacement="""
import torch
loss = torch.randn(3).sum()
if torch.isnan(loss):  # TCK702
    raise RuntimeError("diverged")
""",
        ),
        Invalid(
            """
import math
import torch
def valid_mask(scores: torch.Tensor) -> torch.Tensor:
    return scores != math.nan  # TCK702
""",
            expected_replacement="""
import math
import torch
def valid_mask(scores: torch.Tensor) -> torch.Tensor:
    return ~torch.isnan(scores)  # TCK702
""",
        ),
        Invalid(
            """
import numpy as np
import torch
x = torch.zeros(4)
count = (np.nan == x).sum()  # TCK702
valid = (x != np.nan).sum()  # TCK702
""",
            expected_replacement="""
import numpy as np
import torch
x = torch.zeros(4)
count = torch.isnan(x).sum()  # TCK702
valid = (~torch.isnan(x)).sum()  # TCK702
""",
        ),
        Invalid(
            """
import math
def check(value):
    if value == math.nan:  # TCK702
        return None
    return value
"""
        ),
        Invalid(
            """
import torch as T
from math import nan
x = T.ones(2)
flags = x == nan  # TCK702
also = x != T.nan  # TCK702
"""
        ),
    )

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if len(node.comparisons) != 1:
            return
        target = node.comparisons[0]
        if not isinstance(target.operator, (cst.Equal, cst.NotEqual)):
            return
        if self._is_nan(target.comparator):
            operand = node.left
        elif self._is_nan(node.left):
            operand = target.comparator
        else:
            return
        if not (self.context.is_tensor(operand) and self.context.qualified_name(cst.Name("torch")) == "torch"):
            self.report(node)
            return
        isnan: cst.BaseExpression = cst.Call(
            func=cst.Attribute(value=cst.Name("torch"), attr=cst.Name("isnan")), args=[cst.Arg(operand)]
        )
        if isinstance(target.operator, cst.NotEqual):
            # `~` binds looser than attribute access: keep the comparison's parentheses
            isnan = cst.UnaryOperation(operator=cst.BitInvert(), expression=isnan, lpar=node.lpar, rpar=node.rpar)
        self.report(node, replacement=isnan, fix_safety=fix_safety_on(self.context.evidence_of(operand)))

    def _is_nan(self, expression: cst.BaseExpression) -> bool:
        if isinstance(expression, cst.Call):
            if not (isinstance(expression.func, cst.Name) and expression.func.value == "float"):
                return False
            if len(expression.args) != 1 or not isinstance(expression.args[0].value, cst.SimpleString):
                return False
            text = expression.args[0].value.evaluated_value
            return isinstance(text, str) and text.strip().lstrip("+-").lower() == "nan"
        if isinstance(expression, (cst.Name, cst.Attribute)):
            return self.context.qualified_name(expression) in _NAN_CONSTANTS
        return False
