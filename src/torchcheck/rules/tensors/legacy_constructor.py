from __future__ import annotations

import libcst as cst

from torchcheck.lint import torch_api
from torchcheck.lint.rule import Invalid, Rule, Valid

_TENSOR_CONSTRUCTORS = torch_api.LEGACY_TENSOR_CONSTRUCTORS
_VARIABLE = torch_api.VARIABLE

VARIABLE_MESSAGE = "`Variable` is deprecated and returns a plain tensor; use the tensor itself (with `requires_grad=True` if needed)"


class LegacyConstructor(Rule):
    """
    ## What it does
    Checks for the legacy tensor constructors `torch.Tensor(...)`,
    `torch.FloatTensor(...)` and the other typed `torch.*Tensor` / `torch.cuda.*Tensor`
    classes, and for `torch.autograd.Variable(...)`.

    ## Why is this bad?
    Called with sizes, `torch.Tensor(3, 4)` allocates *uninitialized* memory: whatever
    bytes were there before, sometimes huge values or NaN, and a different result on every
    run. Called with data, the typed constructors infer nothing and silently convert
    (`torch.Tensor([1, 2])` is float32, and does not accept `dtype=` or `device=`).
    `Variable` has been a no-op wrapper since PyTorch 0.4. Use the factory functions:
    `torch.empty`/`torch.zeros` for sizes, `torch.tensor(data, dtype=...)` for data, and
    plain tensors instead of `Variable`.

    ## Example
    ```python
    import torch
    from torch import nn
    from torch.autograd import Variable

    weight = nn.Parameter(torch.Tensor(out_features, in_features))
    labels = torch.cuda.LongTensor([0, 1, 1])
    x = Variable(x, requires_grad=True)
    ```

    Use instead:
    ```python
    import torch
    from torch import nn

    weight = nn.Parameter(torch.empty(out_features, in_features))
    labels = torch.tensor([0, 1, 1], dtype=torch.long, device="cuda")
    x = x.requires_grad_()
    ```

    ## Fix safety
    There is no automatic fix: whether sizes or data were meant, and whether
    uninitialized memory was relied on, depends on the arguments at run time.

    ## References
    - [Tensor creation ops](https://pytorch.org/docs/stable/torch.html#creation-ops)
    - [`torch.tensor`](https://pytorch.org/docs/stable/generated/torch.tensor.html)
    - [`torch.Tensor`: legacy constructors](https://pytorch.org/docs/stable/tensors.html#torch.Tensor)
    """

    code = "TCK703"
    name = "legacy-constructor"
    message = "Legacy tensor constructor; use `torch.empty`/`torch.zeros` for sizes or `torch.tensor(data, dtype=...)` for data"
    required_text = ("Tensor(", "Variable(")

    VALID = (
        Valid(
            """
import torch
import torch.nn as nn
weight = nn.Parameter(torch.empty(4, 3))
labels = torch.tensor([0, 1], dtype=torch.long)
if isinstance(x, torch.Tensor):
    pass
def forward(x: torch.Tensor) -> torch.FloatTensor:
    return x
"""
        ),
        Valid(
            """
import torch
class Meta(torch.Tensor):
    @staticmethod
    def __new__(cls, data):
        return torch.Tensor._make_subclass(cls, data)
"""
        ),
        Valid(
            """
from tensorflow import Variable
from mylib import Tensor
v = Variable(3)
t = Tensor(4)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
import torch.nn as nn

class Linear(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.Tensor(n_out, n_in))  # TCK703
"""
        ),
        Invalid(
            """
import torch
from torch.autograd import Variable
labels = torch.cuda.LongTensor([0, 1, 1])  # TCK703
scores = torch.FloatTensor(3).zero_()  # TCK703
x = Variable(torch.ones(3), requires_grad=True)  # TCK703
"""
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.call_name(node)
        if qualified in _TENSOR_CONSTRUCTORS:
            self.report(node)
        elif qualified in _VARIABLE:
            self.report(node, VARIABLE_MESSAGE)
