from __future__ import annotations

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.kinds import Kind
from torchcheck.lint.nodes import decorator_names, runs_a_parent_initialiser
from torchcheck.lint.rule import Invalid, Valid
from torchcheck.rules.modules._common import PARAMETER_CLASSES, ModuleClassRule, self_attribute

_MODULE_BASE = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})


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
    (or the base class's `__init__`). The old one-argument spelling `super(Cls).__init__()`
    counts as never calling it: an unbound `super` object initialises itself, not the module.

    ## Why is this bad?
    `nn.Module.__init__` creates the dictionaries that hold parameters, buffers, submodules
    and hooks. Without it, the first submodule assignment fails with
    `AttributeError: cannot assign module before Module.__init__() call`, and a module
    without submodules fails later, at its first call. Call `super().__init__()` first
    thing in `__init__`.

    A direct subclass of `nn.Module` that defines no `forward` and whose constructor stores
    no submodule or parameter is not reported: it is never used as a module (calling it
    would raise even if initialised) and stores nothing that needs registering. Such classes
    stand in for a model where only an attribute is read (`model.config` in a test).

    Test code (test functions and classes, files under a `tests/` folder) is not checked: a test stub that skips the parent initialiser does so on purpose, and would fail loudly if it mattered.

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
    applies_in_tests = False
    name = "missing-super-init"
    follows_project_bases = True
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
import torch.nn as nn
class ModelWithConfig(nn.Module):
    def __init__(self):
        self.config = {"hidden_size": 8}
def test_reads_config():
    assert read_config(ModelWithConfig())["hidden_size"] == 8
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
import torch
import torch.nn as nn
class Head(nn.Module):
    def __init__(self, dim, classes):  # TCK603
        self.fc = nn.Linear(dim, classes)
class Scale(nn.Module):
    def __init__(self):  # TCK603
        self.weight = nn.Parameter(torch.ones(1))
class Extractor(nn.Module):
    def __init__(self, reader):  # TCK603
        self.reader = reader
    def forward(self, x):
        return self.reader(x)
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
        Invalid(
            """
import torch.nn as nn
class Encoder(nn.Module):
    def __init__(self, dim):  # TCK603
        super(Encoder).__init__()
        self.proj = nn.Linear(dim, dim)
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._constructors: list[tuple[cst.FunctionDef, list[bool]]] = []  # (__init__, [calls an __init__])
        self._registering: set[cst.FunctionDef] = set()  # constructors that store a submodule or parameter

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        super().visit_FunctionDef(node)
        if self.method is node and self.in_torch_module and node.name.value == "__init__" and "overload" not in decorator_names(node):
            self._constructors.append((node, [False]))

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self._constructors and self._constructors[-1][0] is node:
            _, called = self._constructors.pop()
            if not called[0] and not _is_stub(node) and not self._is_stand_in(node):
                self.report(node.name)
        super().leave_FunctionDef(node)

    def visit_Call(self, node: cst.Call) -> None:
        if self._constructors and runs_a_parent_initialiser(node):
            self._constructors[-1][1][0] = True

    def visit_Assign(self, node: cst.Assign) -> None:
        if self._uninitialised_so_far() and any(self._registers(target.target, node.value) for target in node.targets):
            self._registering.add(self._constructors[-1][0])

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if self._uninitialised_so_far() and node.value is not None and self._registers(node.target, node.value):
            self._registering.add(self._constructors[-1][0])

    def _uninitialised_so_far(self) -> bool:
        """In a constructor that has not called an ``__init__`` yet (most call it first, and
        then what they store does not matter)."""
        return bool(self._constructors) and not self._constructors[-1][1][0]

    def _registers(self, target: cst.BaseExpression, value: cst.BaseExpression) -> bool:
        """``self.x = <module or parameter>``: what ``nn.Module.__setattr__`` needs the
        initialised module for."""
        if self_attribute(target, self.self_name) is None:
            return False
        if isinstance(value, cst.Call) and self.context.call_name(value) in PARAMETER_CLASSES:
            return True
        return self.context.kind_of(value) is Kind.MODULE

    def _is_stand_in(self, constructor: cst.FunctionDef) -> bool:
        """A direct ``nn.Module`` subclass without ``forward`` whose constructor registers
        nothing: never used as a module, so the missing initialisation is harmless."""
        owner = self.context.current_class
        if owner is None or constructor in self._registering:
            return False
        bases = [self.context.qualified_name(base.value) for base in owner.bases if base.keyword is None]
        if not bases or any(base not in _MODULE_BASE for base in bases):
            return False
        body = owner.body.body if isinstance(owner.body, cst.IndentedBlock) else ()
        return not any(
            isinstance(statement, cst.FunctionDef) and statement.name.value == "forward" for statement in body
        )
