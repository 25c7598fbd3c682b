from __future__ import annotations

import libcst as cst

from torchcheck.lint import torch_api
from torchcheck.lint.nodes import source_text
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid

# Managers that take no required argument, so adding `()` is the whole fix. `set_grad_enabled`
# needs a `mode`: without parentheses there is no call to complete, so it is left out.
_GRAD_MODE_CLASSES = torch_api.NO_GRAD_CONTEXTS | torch_api.ENABLE_GRAD_CONTEXTS
# Methods of a training step whose bare mention as a statement does nothing: `model.eval`.
_STEP_METHODS = frozenset({"eval", "train", "zero_grad", "step", "backward"})
_NOT_CALLED = "`{method}` is never called: the statement does nothing; write `{method}()`"


class GradModeNotCalled(Rule):
    """
    ## What it does
    Checks for `with torch.no_grad:`, `with torch.enable_grad:` and `with
    torch.inference_mode:` (and their `torch.autograd` spellings) written without
    parentheses, and for a mode switch or training step named as a statement of its own
    without its call: `model.eval`, `model.train`, `optimizer.zero_grad`,
    `optimizer.step`, `scheduler.step`, `loss.backward`.

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

    A bare `model.eval` evaluates the bound method and throws it away: the model stays in
    training mode (dropout on, batch-norm statistics updated by the evaluation data), the
    optimizer never clears or steps, and nothing says so.

    ## Fix safety
    The fix adds `()`. For a `with` item it is safe: the original line always raises, and
    the fixed one does what it reads as (`inference_mode()` defaults to `mode=True`). For a
    bare method it is unsafe: the call changes what the program does (which is the point),
    and the code around it was written, and maybe tuned, without it.

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
    required_text = ("no_grad", "enable_grad", "inference_mode", *_STEP_METHODS)

    VALID = (
        Valid(
            """
def evaluate(model, loader):
    model.eval()
    mode = model.training
    switch = model.train
    return [model(x) for x in loader], mode, switch
"""
        ),
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
def train(model, loader, optimizer, criterion):
    model.train  # TCK110
    for x, y in loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
    model.eval  # TCK110
""",
            expected_replacement="""
def train(model, loader, optimizer, criterion):
    model.train()  # TCK110
    for x, y in loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
    model.eval()  # TCK110
""",
        ),
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

    def visit_Expr(self, node: cst.Expr) -> None:
        expression = node.value
        if type(expression) is cst.Attribute and expression.attr.value in _STEP_METHODS and not expression.lpar:
            called = cst.Call(func=expression)
            self.report(node, _NOT_CALLED.format(method=source_text(expression)), replacement=node.with_changes(value=called), fix_safety=FixSafety.UNSAFE)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        expression = node.item
        if not isinstance(expression, (cst.Name, cst.Attribute)):
            return
        if self.context.qualified_name(expression) not in _GRAD_MODE_CLASSES:
            return
        called = cst.Call(func=expression.with_changes(lpar=[], rpar=[]), lpar=expression.lpar, rpar=expression.rpar)
        self.report(node, replacement=node.with_changes(item=called))
