from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.rule import Invalid, Rule, Valid

_BENCHMARK = "torch.backends.cudnn.benchmark"
_DETERMINISTIC_FLAG = "torch.backends.cudnn.deterministic"
_DETERMINISTIC_CALLS = frozenset({"torch.use_deterministic_algorithms", "torch.set_deterministic"})

# (if statement, branch index): the branches a statement sits in, outermost first
_Branches = tuple[tuple[cst.If, int], ...]


@dataclass(frozen=True)
class _Setting:
    node: cst.CSTNode
    scope: cst.CSTNode | None  # the enclosing function or class; None at module level
    branches: _Branches


def _exclusive(first: _Branches, second: _Branches) -> bool:
    """The two statements sit in different branches of one ``if``: never both run."""
    taken = dict(first)
    return any(if_node in taken and taken[if_node] != index for if_node, index in second)


def _is_true(expression: cst.BaseExpression) -> bool:
    return isinstance(expression, cst.Name) and expression.value == "True"


def _is_false(expression: cst.BaseExpression) -> bool:
    return isinstance(expression, cst.Name) and expression.value == "False"


class BenchmarkDefeatsDeterminism(Rule):
    """
    ## What it does
    Checks for `torch.backends.cudnn.benchmark = True` in code that also asks for
    deterministic results with `torch.backends.cudnn.deterministic = True` or
    `torch.use_deterministic_algorithms(True)`.

    ## Why is this bad?
    With `benchmark = True`, cuDNN times several convolution algorithms on the first call
    for each input shape and keeps the fastest. Which one wins depends on timing noise and
    on the GPU, so two runs can pick different algorithms and produce different numbers:
    the deterministic setting next to it no longer makes runs repeatable. When results must
    be reproducible, set `benchmark = False`; `benchmark = True` on its own is a fine speed
    setting.

    ## Example
    ```python
    import torch

    torch.manual_seed(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = True
    ```

    Use instead:
    ```python
    import torch

    torch.manual_seed(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
    ```

    ## Fix safety
    There is no automatic fix: the code has to choose between speed and reproducibility.

    ## References
    - [Reproducibility: CUDA convolution benchmarking](https://pytorch.org/docs/stable/notes/randomness.html#cuda-convolution-benchmarking)
    - [`torch.use_deterministic_algorithms`](https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html)
    """

    code = "TCK501"
    name = "benchmark-defeats-determinism"
    message = "`cudnn.benchmark = True` picks algorithms by timing and defeats the deterministic setting here"
    required_text = ("benchmark",)

    VALID = (
        Valid(
            """
import torch
torch.backends.cudnn.benchmark = True
"""
        ),
        Valid(
            """
import torch
torch.manual_seed(0)
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
"""
        ),
        Valid(
            """
import torch.backends.cudnn as cudnn
if args.deterministic:
    cudnn.deterministic = True
    cudnn.benchmark = False
else:
    cudnn.benchmark = True
"""
        ),
        Valid(
            """
import torch
torch.backends.cudnn.benchmark = True
if args.seed is not None:
    torch.use_deterministic_algorithms(True)
    torch.backends.cudnn.benchmark = False
"""
        ),
        Valid(
            """
import torch
def make_fast():
    torch.backends.cudnn.benchmark = True

def make_reproducible():
    torch.use_deterministic_algorithms(True)
"""
        ),
        Valid(
            """
import torch
if deterministic:
    torch.use_deterministic_algorithms(True)
elif fast:
    torch.backends.cudnn.benchmark = True
torch.backends.cudnn.benchmark = args.benchmark
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import random
import numpy as np
import torch

def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = True  # TCK501
"""
        ),
        Invalid(
            """
import torch
from torch.backends import cudnn
torch.use_deterministic_algorithms(True, warn_only=True)
if torch.cuda.is_available():
    cudnn.benchmark = True  # TCK501
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._scopes: list[cst.CSTNode] = []
        self._branch_of: dict[cst.CSTNode, tuple[cst.If, int]] = {}
        self._branches: list[tuple[cst.If, int]] = []
        self._fast: list[_Setting] = []  # benchmark = True
        self._slow: list[_Setting] = []  # benchmark = False
        self._deterministic: list[_Setting] = []

    # ------------------------------------------------------------ where a statement sits
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._scopes.append(node)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._scopes.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._scopes.append(node)

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self._scopes.pop()

    def visit_If(self, node: cst.If) -> None:
        self._enter_branch(node)  # an `elif` is the else branch of the `if` above it
        self._branch_of[node.body] = (node, 0)
        if isinstance(node.orelse, cst.Else):
            self._branch_of[node.orelse.body] = (node, 1)
        elif isinstance(node.orelse, cst.If):
            self._branch_of[node.orelse] = (node, 1)

    def leave_If(self, node: cst.If) -> None:
        self._leave_branch(node)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._enter_branch(node)

    def leave_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._leave_branch(node)

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._enter_branch(node)

    def leave_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._leave_branch(node)

    def _enter_branch(self, node: cst.CSTNode) -> None:
        branch = self._branch_of.get(node)
        if branch is not None:
            self._branches.append(branch)

    def _leave_branch(self, node: cst.CSTNode) -> None:
        if self._branch_of.pop(node, None) is not None:
            self._branches.pop()

    def _setting(self, node: cst.CSTNode) -> _Setting:
        return _Setting(node, self._scopes[-1] if self._scopes else None, tuple(self._branches))

    # ------------------------------------------------------------ the settings
    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if not isinstance(target.target, cst.Attribute):
                continue
            name = self.context.qualified_name(target.target)
            if name == _BENCHMARK and _is_true(node.value):
                self._fast.append(self._setting(node))
            elif name == _BENCHMARK and _is_false(node.value):
                self._slow.append(self._setting(node))
            elif name == _DETERMINISTIC_FLAG and _is_true(node.value):
                self._deterministic.append(self._setting(node))

    def visit_Call(self, node: cst.Call) -> None:
        if not node.args or self.context.call_name(node) not in _DETERMINISTIC_CALLS:
            return
        mode = node.args[0]
        if (mode.keyword is None or mode.keyword.value == "mode") and _is_true(mode.value):
            self._deterministic.append(self._setting(node))

    def leave_Module(self, node: cst.Module) -> None:
        for fast in self._fast:
            if any(self._conflicts(fast, deterministic) for deterministic in self._deterministic):
                self.report(fast.node)

    def _conflicts(self, fast: _Setting, deterministic: _Setting) -> bool:
        if fast.scope is not deterministic.scope or _exclusive(fast.branches, deterministic.branches):
            return False
        # `benchmark = False` wherever the deterministic setting runs: the code chose
        return not any(
            slow.scope is deterministic.scope and not _exclusive(slow.branches, deterministic.branches)
            for slow in self._slow
        )
