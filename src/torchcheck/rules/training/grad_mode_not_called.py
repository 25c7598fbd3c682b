from __future__ import annotations

import libcst as cst

from torchcheck.lint import torch_api
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid

# Managers that take no required argument, so adding `()` is the whole fix. `set_grad_enabled`
# needs a `mode`: without parentheses there is no call to complete, so it is left out.
_GRAD_MODE_CLASSES = torch_api.NO_GRAD_CONTEXTS | torch_api.ENABLE_GRAD_CONTEXTS


class GradModeNotCalled(Rule):
    """
    ## What it does
    Checks for `with torch.no_grad:`, `with torch.enable_grad:` and `with
    torch.inference_mode:` (and their `torch.autograd` spellings) written without
    parentheses.

    ## Why is this bad?
    These are classes: the `with` statement needs an *instance*. `with torch.no_grad:`
    raises `TypeError: 'type' object does not support the context manager protocol`
    (`AttributeError: __enter__` before Python 3.11) as soon as the line runs - typically
    in an evaluation function that the tests never reached. Call the class:
    `with torch.no_grad():`.

    As a *decorator*, `@torch.no_grad` without parentheses is fine since PyTorch 2.1
    (`no_grad`, `enable_grad` and `inference_mode` accept the decorated function directly),
    so decorators are not reported.

    ## Example
    ```python
    import torch

    with torch.no_grad:
        predictions = model(images)
    ```

    Use instead:
    ```python
    import torch

    with torch.no_grad():
        predictions = model(images)
    ```

    ## Fix safety
    The fix adds `()`. It is safe: the original line always raises, and the fixed one does
    what it reads as (`inference_mode()` defaults to `mode=True`).

    ## References
    - [`torch.no_grad`](https://pytorch.org/docs/stable/generated/torch.no_grad.html)
    - [`torch.inference_mode`](https://pytorch.org/docs/stable/generated/torch.autograd.grad_mode.inference_mode.html)
    - [pytorch/pytorch#107086: grad-mode decorators without parentheses](https://github.com/pytorch/pytorch/pull/107086)
    """

    code = "TCK110"
    name = "grad-mode-not-called"
    message = "Grad-mode manager used without `()`: `with` needs an instance, so this raises TypeError"
    fix_title = "Call it: add `()`"
    fix_safety = FixSafety.SAFE
    required_text = ("no_grad", "enable_grad", "inference_mode")

    VALID = (
        Valid(
            """
import torch

with torch.no_grad():
    predictions = model(images)
with torch.inference_mode(), torch.autocast("cuda"):
    predictions = model(images)

@torch.no_grad
def evaluate(model, images):
    return model(images)

@torch.inference_mode
def generate(model, prompt):
    return model.generate(prompt)
"""
        ),
        Valid(
            """
import contextlib
import torch

no_grad = torch.no_grad()
with no_grad:
    predictions = model(images)
context = torch.no_grad if frozen else contextlib.nullcontext
with context():
    predictions = model(images)
with torch.set_grad_enabled(False):
    predictions = model(images)
"""
        ),
        Valid(
            """
from .utils import no_grad  # a context-manager instance

with no_grad:
    predictions = model(images)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch

def evaluate(model, images):
    with torch.no_grad:  # TCK110
        return model(images)
""",
            expected_replacement="""
import torch

def evaluate(model, images):
    with torch.no_grad():  # TCK110
        return model(images)
""",
        ),
        Invalid(
            """
import torch as T
from torch import inference_mode
from torch.autograd import enable_grad

with inference_mode, T.autocast("cuda"):  # TCK110
    with (
        enable_grad  # TCK110
    ):
        loss = model(images).sum()
with T.autograd.grad_mode.no_grad as frozen:  # TCK110
    pass
""",
            expected_replacement="""
import torch as T
from torch import inference_mode
from torch.autograd import enable_grad

with inference_mode(), T.autocast("cuda"):  # TCK110
    with (
        enable_grad()  # TCK110
    ):
        loss = model(images).sum()
with T.autograd.grad_mode.no_grad() as frozen:  # TCK110
    pass
""",
        ),
    )

    def visit_WithItem(self, node: cst.WithItem) -> None:
        expression = node.item
        if not isinstance(expression, (cst.Name, cst.Attribute)):
            return
        if self.context.qualified_name(expression) not in _GRAD_MODE_CLASSES:
            return
        called = cst.Call(func=expression.with_changes(lpar=[], rpar=[]), lpar=expression.lpar, rpar=expression.rpar)
        self.report(node, replacement=node.with_changes(item=called))
