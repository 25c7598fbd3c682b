from __future__ import annotations

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.rule import Invalid, Valid
from torchcheck.rules.modules._common import ModuleClassRule, is_overload


def _is_stub(function: cst.FunctionDef) -> bool:
    """A body of only a docstring, `...` and `raise`: an abstract or unsupported constructor."""
    body = function.body
    if isinstance(body, cst.SimpleStatementSuite):
        statements = list(body.body)
    else:
        statements = []
        for line in body.body:
            if not isinstance(line, cst.SimpleStatementLine):
                return False
            statements.extend(line.body)
    return all(
        isinstance(statement, cst.Raise)
        or (isinstance(statement, cst.Expr) and isinstance(statement.value, (cst.Ellipsis, cst.BaseString)))
        for statement in statements
    )


class MissingSuperInit(ModuleClassRule):
    """
    ## What it does
    Checks for `nn.Module` subclasses whose `__init__` never calls `super().__init__()`
    (or the base class's `__init__`).

    ## Why is this bad?
    `nn.Module.__init__` creates the dictionaries that hold parameters, buffers, submodules
    and hooks. Without it, the first submodule assignment fails with
    `AttributeError: cannot assign module before Module.__init__() call`, and a module
    without submodules fails later, at its first call. Call `super().__init__()` first
    thing in `__init__`.

    ## Example
    ```python
    from torch import nn

    class Head(nn.Module):
        def __init__(self, dim, classes):
            self.fc = nn.Linear(dim, classes)
    ```

    Use instead:
    ```python
    from torch import nn

    class Head(nn.Module):
        def __init__(self, dim, classes):
            super().__init__()
            self.fc = nn.Linear(dim, classes)
    ```

    ## Fix safety
    There is no automatic fix: the base class's constructor may need arguments.

    ## References
    - [`torch.nn.Module`](https://pytorch.org/docs/stable/generated/torch.nn.Module.html)
    - [Build the neural network (PyTorch tutorial)](https://pytorch.org/tutorials/beginner/basics/buildmodel_tutorial.html)
    """

    code = "TCK603"
    name = "missing-super-init"
    message = "`nn.Module` subclass's `__init__` never calls `super().__init__()`; the module is not initialised"
    required_text = ("__init__",)

    VALID = (
        Valid(
            """
import torch.nn as nn
class Head(nn.Module):
    def __init__(self, dim, classes):
        super().__init__()
        self.fc = nn.Linear(dim, classes)
class OldStyle(nn.Module):
    def __init__(self):
        super(OldStyle, self).__init__()
class Explicit(nn.Module):
    def __init__(self):
        nn.Module.__init__(self)
class Child(Head):
    def __init__(self):
        Head.__init__(self, 8, 2)
"""
        ),
        Valid(
            """
import torch.nn as nn
class NoInit(nn.Module):
    def forward(self, x):
        return x
class Abstract(nn.Module):
    def __init__(self, *args):
        raise NotImplementedError
"""
        ),
        Valid(
            """
import torch
from torch import nn
class Scale(nn.Parameter):
    def __init__(self, data):
        self.tag = "scale"
class Config:
    def __init__(self):
        self.dim = 8
"""
        ),
        Valid(
            """
import equinox as eqx
class MLP(eqx.Module):
    def __init__(self, key):
        self.layers = []
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch.nn as nn
class Head(nn.Module):
    def __init__(self, dim, classes):  # TCK603
        self.fc = nn.Linear(dim, classes)
"""
        ),
        Invalid(
            """
from torch.nn import Linear
class Scaled(Linear):
    def __init__(self, dim):  # TCK603
        self.scale = 2.0
class Deeper(Scaled):
    def __init__(self):  # TCK603
        pass
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._constructors: list[tuple[cst.FunctionDef, list[bool]]] = []  # (__init__, [calls an __init__])

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        is_method = self.class_frame is not None and not self.class_frame.functions
        super().visit_FunctionDef(node)
        if is_method and self.in_torch_module and node.name.value == "__init__" and not is_overload(node):
            self._constructors.append((node, [False]))

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self._constructors and self._constructors[-1][0] is node:
            _, called = self._constructors.pop()
            if not called[0] and not _is_stub(node):
                self.report(node.name)
        super().leave_FunctionDef(node)

    def visit_Call(self, node: cst.Call) -> None:
        if self._constructors and isinstance(node.func, cst.Attribute) and node.func.attr.value == "__init__":
            self._constructors[-1][1][0] = True
