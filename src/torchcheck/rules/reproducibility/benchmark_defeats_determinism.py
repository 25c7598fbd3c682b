from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from torchcheck.lint.context import LintContext, source_text
from torchcheck.lint.rule import Invalid, Rule, Valid

_BENCHMARK = "torch.backends.cudnn.benchmark"
_DETERMINISTIC_FLAG = "torch.backends.cudnn.deterministic"
_DETERMINISTIC_CALLS = frozenset({"torch.use_deterministic_algorithms", "torch.set_deterministic"})

_ACROSS_FUNCTIONS = (
    "`cudnn.benchmark = True` picks algorithms by timing and defeats `{setting}` {where} at line {line}, "
    "which runs in the same program"
)

# (if statement, branch index): the branches a statement sits in, outermost first
_Branches = tuple[tuple[cst.If, int], ...]


@dataclass(frozen=True)
class _Setting:
    node: cst.CSTNode
    scope: cst.CSTNode | None  # the enclosing function or class; None at module level
    branches: _Branches
    order: int  # walk order, to tell what runs after what within one scope


@dataclass(frozen=True)
class _Reference:
    """A top-level function named in a scope: called (``main_worker(...)``) or handed on to
    be called (``mp.spawn(main_worker, ...)``)."""

    scope: cst.CSTNode | None
    function: cst.FunctionDef
    branches: _Branches
    order: int


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
    `torch.use_deterministic_algorithms(True)` - in the same function, or in functions of
    the same module that run in one program (one calls the other, directly or by handing
    it to `mp.spawn`, or a common caller calls both on the same path). The finding names
    the deterministic setting it defeats.

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

    The settings often sit in different functions, as in the ImageNet example that many
    training scripts copy: `main()` sets `cudnn.deterministic = True` (and even
    `cudnn.benchmark = False`) when a seed is given, then starts `main_worker()`, which sets
    `cudnn.benchmark = True` unconditionally and so undoes it.

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
        Valid(
            """
import torch

def make_fast():
    torch.backends.cudnn.benchmark = True

def make_reproducible(seed):
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)

def main(args):
    if args.deterministic:
        make_reproducible(args.seed)
    else:
        make_fast()
"""
        ),
        Valid(
            """
import torch

def setup_cudnn():
    torch.backends.cudnn.benchmark = True

def main(seed):
    setup_cudnn()
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    torch.backends.cudnn.benchmark = False
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
        Invalid(
            """
import torch
import torch.backends.cudnn as cudnn
import torch.multiprocessing as mp

def main(args):
    if args.seed is not None:
        torch.manual_seed(args.seed)
        cudnn.deterministic = True
        cudnn.benchmark = False
    mp.spawn(main_worker, nprocs=args.gpus, args=(args,))

def main_worker(gpu, args):
    cudnn.benchmark = True  # TCK501
"""
        ),
        Invalid(
            """
import torch

def seed_everything(seed):
    torch.manual_seed(seed)
    torch.backends.cudnn.deterministic = True

def configure_cudnn():
    torch.backends.cudnn.benchmark = True  # TCK501

def main():
    seed_everything(0)
    configure_cudnn()
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
        self._functions: dict[str, cst.FunctionDef] = {}  # top level, by name
        self._references: list[_Reference] = []
        self._not_references: set[cst.Name] = set()  # attribute and keyword names, def names
        self._order = 0

    # ------------------------------------------------------------ where a statement sits
    def visit_Module(self, node: cst.Module) -> None:
        for statement in node.body:
            if isinstance(statement, cst.FunctionDef):
                self._functions[statement.name.value] = statement
                self._not_references.add(statement.name)

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

    def _scope(self) -> cst.CSTNode | None:
        return self._scopes[-1] if self._scopes else None

    def _next(self) -> int:
        self._order += 1
        return self._order

    def _setting(self, node: cst.CSTNode) -> _Setting:
        return _Setting(node, self._scope(), tuple(self._branches), self._next())

    # ------------------------------------------------------------ references to functions
    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._not_references.add(node.attr)

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._not_references.add(node.keyword)

    def visit_Name(self, node: cst.Name) -> None:
        function = self._functions.get(node.value)
        if function is None or node in self._not_references or function is self._scope():
            return
        binding = self.context.flow.last_binding(node.value)
        if binding is not None and binding.node is not function:
            return  # the name means something else here (a parameter, a local)
        self._references.append(_Reference(self._scope(), function, tuple(self._branches), self._next()))

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

    # ------------------------------------------------------------ decision at the end
    def leave_Module(self, node: cst.Module) -> None:
        for fast in self._fast:
            same_scope = [deterministic for deterministic in self._deterministic if deterministic.scope is fast.scope]
            if any(self._conflicts(fast, deterministic) for deterministic in same_scope):
                self.report(fast.node)
                continue
            across = next((d for d in self._deterministic if d.scope is not fast.scope and self._conflicts_across(fast, d)), None)
            if across is not None:
                self.report(fast.node, self._across_message(across))

    def _conflicts(self, fast: _Setting, deterministic: _Setting) -> bool:
        if fast.scope is not deterministic.scope or _exclusive(fast.branches, deterministic.branches):
            return False
        return not self._chosen(deterministic)

    def _chosen(self, deterministic: _Setting, after: int = 0) -> bool:
        """`benchmark = False` wherever the deterministic setting runs (after ``after``): the code chose."""
        return any(
            slow.scope is deterministic.scope and slow.order > after and not _exclusive(slow.branches, deterministic.branches)
            for slow in self._slow
        )

    def _conflicts_across(self, fast: _Setting, deterministic: _Setting) -> bool:
        """The two settings are in different functions of the module that run in one program."""
        if not (self._is_function_scope(fast.scope) and self._is_function_scope(deterministic.scope)):
            return False
        # the deterministic function starts the fast one (main() -> mp.spawn(main_worker))
        for reference in self._leading_to(deterministic.scope, fast.scope):
            if not _exclusive(reference.branches, deterministic.branches) and not self._chosen(deterministic, reference.order):
                return True
        # the fast function calls the deterministic one: fine only if that one turns benchmark off
        for reference in self._leading_to(fast.scope, deterministic.scope):
            if not _exclusive(reference.branches, fast.branches) and (fast.order > reference.order or not self._chosen(deterministic)):
                return True
        return self._called_together(fast, deterministic)

    def _called_together(self, fast: _Setting, deterministic: _Setting) -> bool:
        """A third scope calls both on one path, the deterministic one first (or without the
        deterministic function turning benchmark off)."""
        for caller in {reference.scope for reference in self._references}:
            if caller is fast.scope or caller is deterministic.scope:
                continue
            for to_fast in self._leading_to(caller, fast.scope):
                for to_deterministic in self._leading_to(caller, deterministic.scope):
                    if _exclusive(to_fast.branches, to_deterministic.branches):
                        continue
                    if to_deterministic.order < to_fast.order or not self._chosen(deterministic):
                        return True
        return False

    def _is_function_scope(self, scope: cst.CSTNode | None) -> bool:
        return scope is None or (isinstance(scope, cst.FunctionDef) and self._functions.get(scope.name.value) is scope)

    def _leading_to(self, caller: cst.CSTNode | None, target: cst.CSTNode | None) -> list[_Reference]:
        """The references in ``caller`` to functions from which ``target`` is reached."""
        if target is None:
            return []
        return [reference for reference in self._references if reference.scope is caller and target in self._reached_from(reference.function)]

    def _reached_from(self, function: cst.FunctionDef) -> set[cst.CSTNode]:
        reached: set[cst.CSTNode] = {function}
        pending = [function]
        while pending:
            current = pending.pop()
            for reference in self._references:
                if reference.scope is current and reference.function not in reached:
                    reached.add(reference.function)
                    pending.append(reference.function)
        return reached

    def _across_message(self, deterministic: _Setting) -> str:
        scope = deterministic.scope
        where = f"in `{scope.name.value}()`" if isinstance(scope, cst.FunctionDef) else "at module level"
        setting = " ".join(source_text(deterministic.node).split())
        return _ACROSS_FUNCTIONS.format(setting=setting, where=where, line=self.context.line_of(deterministic.node))
