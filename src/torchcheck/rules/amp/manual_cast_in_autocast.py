from __future__ import annotations

import libcst as cst

from torchcheck.lint.kinds import TENSOR_KINDS
from torchcheck.lint.nodes import method_call
from torchcheck.lint.rule import Invalid, Rule, Valid

_LOW_PRECISION_DTYPES = frozenset({"torch.float16", "torch.half", "torch.bfloat16"})
_CAST_METHODS = frozenset({"half", "bfloat16"})


class ManualCastInAutocast(Rule):
    """
    ## What it does
    Checks for `.half()`, `.bfloat16()` and `.to(torch.float16)` / `.to(torch.bfloat16)`
    on tensors inside an enabled autocast region.

    ## Why is this bad?
    Autocast chooses the dtype of each operation: matmuls and convolutions run in the low
    precision type, while reductions, softmax, norms and losses are kept in float32 for
    accuracy. A manual cast inside the region overrides that choice for everything
    computed from the cast tensor, feeding float16 into ops that autocast would have run in
    float32 (overflowing sums, inaccurate softmax) and, for `.half()` under a bfloat16
    autocast, mixing two low precision types. Let autocast cast, or leave the region
    (`autocast(enabled=False)`) where a fixed dtype is really needed.

    This is advice about the numerics of training and inference code, so it is not given
    inside tests: a test that feeds a half tensor to a layer under autocast checks how the
    layer handles that dtype, and the cast is its subject. Tests are `unittest.TestCase`
    subclasses and, in a file pytest collects (`test_*.py`, `*_test.py`, `conftest.py`)
    or one that imports pytest, functions named `test*`, fixtures and `Test*` classes.

    ## Example
    ```python
    import torch

    with torch.autocast("cuda", dtype=torch.float16):
        logits = model(x.half())
        loss = criterion(logits, y)
    ```

    Use instead:
    ```python
    import torch

    with torch.autocast("cuda", dtype=torch.float16):
        logits = model(x)
        loss = criterion(logits, y)
    ```

    ## Fix safety
    There is no automatic fix: removing a cast changes the dtype of the result, which code
    after the region may rely on.

    ## References
    - [Automatic mixed precision: autocast op reference](https://pytorch.org/docs/stable/amp.html#autocast-op-reference)
    - [`torch.autocast`](https://pytorch.org/docs/stable/amp.html#torch.autocast)
    """

    code = "TCK306"
    name = "manual-cast-in-autocast"
    message = "Manual cast to a low precision dtype inside an autocast region; let autocast choose the dtype per op"
    required_text = ("autocast",)
    applies_in_tests = False

    VALID = (
        Valid(
            """
import torch
with torch.autocast("cuda", dtype=torch.float16):
    logits = model(x)
    loss = torch.nn.functional.cross_entropy(logits.float(), y)
"""
        ),
        Valid(
            """
import torch
with torch.autocast("cuda"):
    h = model(x)
    with torch.autocast("cuda", enabled=False):
        scores = h.float().softmax(-1)
x = x.half()
"""
        ),
        Valid(
            """
import torch
with torch.autocast("cuda"):
    y = x.to(device)
    z = x.to(torch.float32)
    w = x.to(dtype)
    model.half()
"""
        ),
        Valid(
            """
import torch
with torch.autocast("cuda"):
    def pack(t):
        return t.half()
"""
        ),
        Valid(
            """
import unittest
import pytest
import torch

class NormTest(unittest.TestCase):
    def test_keeps_half_input_in_half(self):
        layer = torch.nn.LayerNorm(8).cuda()
        with torch.autocast("cuda"):
            output = layer(torch.rand(2, 8).cuda().half())
        self.assertEqual(output.dtype, torch.float32)

@pytest.mark.parametrize("size", [1, 8])
def test_bfloat16_input_under_autocast(size):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert torch.ones(size).to(torch.bfloat16).sum().dtype == torch.bfloat16
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
for x, y in loader:
    with torch.autocast(device_type="cuda", dtype=torch.float16):
        logits = model(x.half())  # TCK306
        loss = criterion(logits, y)
"""
        ),
        Invalid(
            """
import torch
from torch.cuda.amp import autocast
def forward(self, q, k):
    with autocast():
        q = q.to(torch.bfloat16)  # TCK306
        k = k.to(device, dtype=torch.half)  # TCK306
        return torch.matmul(q.bfloat16(), k.transpose(-1, -2))  # TCK306
"""
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if not self.context.in_autocast:
            return
        receiver_method = method_call(node)
        if receiver_method is None or not self._is_low_precision_cast(node, receiver_method[1]):
            return
        kind = self.context.kind_of(receiver_method[0])
        if kind is None or kind in TENSOR_KINDS:  # a module's .half() is a different matter
            self.report(node)

    def _is_low_precision_cast(self, call: cst.Call, method: str) -> bool:
        if method in _CAST_METHODS:
            return all(argument.keyword is not None for argument in call.args)
        if method != "to":
            return False
        dtypes = [argument.value for argument in call.args if argument.keyword is None or argument.keyword.value == "dtype"]
        return any(self.context.qualified_name(dtype) in _LOW_PRECISION_DTYPES for dtype in dtypes)
