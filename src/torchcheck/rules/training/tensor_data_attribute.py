from __future__ import annotations

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.nodes import dotted_name, method_call
from torchcheck.lint.rule import Invalid, Rule, Valid

_PARAMETER_METHODS = frozenset({"parameters", "named_parameters", "buffers", "named_buffers"})
_PARAMETER_ATTRIBUTES = frozenset({"weight", "bias"})  # nn layers' parameters, by convention


class TensorDataAttribute(Rule):
    """
    ## What it does
    Checks for `.data` on tensors and parameters: `x.data`, `p.data` for `p` in
    `model.parameters()`, `layer.weight.data`.

    ## Why is this bad?
    `.data` returns a tensor that shares storage with the original but is invisible to
    autograd: changes made through it are not recorded and do not bump the version counter,
    so autograd cannot detect that a value saved for backward was modified - gradients come
    out silently wrong instead of raising an error. Use `x.detach()` to read a tensor
    without its history (in-place changes to it are then caught), and modify parameters in
    place under `torch.no_grad()`.

    The rule is opt-in: `.data` is still common in older code and in optimizer-like
    updates where it is harmless.

    ## Example
    ```python
    for p in model.parameters():
        p.data.clamp_(-0.01, 0.01)
    outputs = model(inputs)
    values = outputs.data.cpu().numpy()
    ```

    Use instead:
    ```python
    import torch

    with torch.no_grad():
        for p in model.parameters():
            p.clamp_(-0.01, 0.01)
    outputs = model(inputs)
    values = outputs.detach().cpu().numpy()
    ```

    ## Fix safety
    There is no automatic fix: `.detach()` is the replacement for reads, `torch.no_grad()`
    for in-place writes, and choosing needs the surrounding code.

    ## References
    - [`torch.Tensor.detach`](https://pytorch.org/docs/stable/generated/torch.Tensor.detach.html)
    - [Autograd mechanics: in-place correctness checks](https://pytorch.org/docs/stable/notes/autograd.html#in-place-correctness-checks)
    - [`torch.no_grad`](https://pytorch.org/docs/stable/generated/torch.no_grad.html)
    """

    code = "TCK107"
    name = "tensor-data-attribute"
    message = "`.data` bypasses autograd; use `.detach()` or modify under `torch.no_grad()`"
    default_enabled = False
    required_text = (".data",)

    VALID = (
        Valid(
            """
import torch
x = torch.randn(3)
values = x.detach().cpu()
with torch.no_grad():
    for p in model.parameters():
        p.clamp_(-0.01, 0.01)
"""
        ),
        Valid(
            """
import torch
dataset = load_dataset()
rows = dataset.data
batch = response.data["items"]
loader = torch.utils.data.DataLoader(dataset)
"""
        ),
        Valid(
            """
def summarize(args, graph):
    return args.data, graph.data.x
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
x = torch.randn(3, requires_grad=True)
y = x.data  # TCK107
"""
        ),
        Invalid(
            """
for p in model.parameters():
    p.data.clamp_(-0.01, 0.01)  # TCK107
for name, param in model.named_parameters():
    param.data = param.data.half()  # TCK107 TCK107
for p_ema, p in zip(ema.parameters(), model.parameters()):
    p_ema.data.mul_(0.99).add_(p.data, alpha=0.01)  # TCK107 TCK107
"""
        ),
        Invalid(
            """
import torch.nn as nn
layer = nn.Linear(4, 4)
layer.weight.data.normal_(0, 0.02)  # TCK107
layer.bias.data.zero_()  # TCK107
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._parameter_names: list[set[str]] = [set()]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._parameter_names.append(set())

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._parameter_names.pop()

    def visit_For(self, node: cst.For) -> None:
        names = self._parameter_names[-1]
        if isinstance(node.target, cst.Name):
            names.discard(node.target.value)
        for target in _parameter_targets(node.target, node.iter):
            names.add(target)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value != "data" or not self._is_tensor(node.value):
            return
        self.report(node)

    def _is_tensor(self, expression: cst.BaseExpression) -> bool:
        if isinstance(expression, cst.Name) and expression.value in self._parameter_names[-1]:
            return True
        if (
            isinstance(expression, cst.Attribute)
            and expression.attr.value in _PARAMETER_ATTRIBUTES
            and self.context.qualified_name(expression) is None
        ):
            return True
        return self.context.is_tensor(expression)


def _yields_parameters(iterable: cst.BaseExpression) -> str | None:
    """``parameters``/``named_parameters``... when ``iterable`` is ``m.parameters()``."""
    found = method_call(iterable)
    if found is not None and found[1] in _PARAMETER_METHODS and dotted_name(found[0]) is not None:
        return found[1]
    return None


def _parameter_targets(target: cst.BaseExpression, iterable: cst.BaseExpression) -> list[str]:
    """Loop variables that hold parameters: ``p`` in ``for p in m.parameters()``, ``param`` in
    ``for name, param in m.named_parameters()``, both in ``zip(a.parameters(), b.parameters())``."""
    method = _yields_parameters(iterable)
    if method is not None:
        if method.startswith("named_"):
            if isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2:
                return _names(target.elements[1].value)
            return []
        return _names(target)
    if (
        isinstance(iterable, cst.Call)
        and isinstance(iterable.func, cst.Name)
        and iterable.func.value == "zip"
        and isinstance(target, (cst.Tuple, cst.List))
        and len(target.elements) == len(iterable.args)
    ):
        found = []
        for element, argument in zip(target.elements, iterable.args):
            zipped = _yields_parameters(argument.value)
            if zipped is not None and not zipped.startswith("named_"):
                found.extend(_names(element.value))
        return found
    return []


def _names(target: cst.BaseExpression) -> list[str]:
    return [target.value] if isinstance(target, cst.Name) else []
