from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.flow import Event
from torchcheck.lint.nodes import literal_bool, source_text
from torchcheck.lint.rule import Invalid, Rule, Valid

_BENCHMARK = "torch.backends.cudnn.benchmark"
_DETERMINISTIC_FLAG = "torch.backends.cudnn.deterministic"
_DETERMINISTIC_CALLS = frozenset({"torch.use_deterministic_algorithms", "torch.set_deterministic"})

_ACROSS_FUNCTIONS = (
    "`cudnn.benchmark = True` picks algorithms by timing and defeats `{setting}` {where} at line {line}, "
    "which runs in the same program"
)


@dataclass(frozen=True)
class _Reference:
    """A top-level function named in a function (or at module level): called
    (``main_worker(...)``) or handed on to be called (``mp.spawn(main_worker, ...)``)."""

    event: Event  # where the name is, in the flow (its function is the caller)
    function: cst.FunctionDef


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
        Valid(
            """
import torch.backends.cudnn as cudnn

def setup(args):
    if args.deterministic:
        cudnn.deterministic = True
    else:
        cudnn.benchmark = True

def main(args):
    match args.mode:
        case "reproducible":
            cudnn.deterministic = True
        case _:
            setup(args)
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
import torch.backends.cudnn as cudnn

def main():
    cudnn.deterministic = True
    main_worker()

def main_worker():
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
        self._fast: list[Event] = []  # benchmark = True
        self._slow: list[Event] = []  # benchmark = False
        self._deterministic: list[Event] = []
        self._functions: dict[str, cst.FunctionDef] = {}  # top level, by name
        self._references: list[_Reference] = []

    def visit_Module(self, node: cst.Module) -> None:
        self._functions = {statement.name.value: statement for statement in node.body if isinstance(statement, cst.FunctionDef)}

    # ------------------------------------------------------------ references to functions
    def visit_Name(self, node: cst.Name) -> None:
        """Kept if the binder, at the end, finds ``node`` is a variable (not a ``def``'s, an
        attribute's or a keyword's name)."""
        function = self._functions.get(node.value)
        flow = self.context.flow
        if function is None or function is flow.function:
            return
        binding = flow.last_binding(node.value)
        if binding is not None and binding.node is not function:
            return  # the name means something else here (a parameter, a local)
        self._references.append(_Reference(flow.event(node), function))

    # ------------------------------------------------------------ the settings
    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if not isinstance(target.target, cst.Attribute):
                continue
            name = self.context.qualified_name(target.target)
            value = literal_bool(node.value)
            if name == _BENCHMARK and value is not None:
                (self._fast if value else self._slow).append(self.context.flow.event(node))
            elif name == _DETERMINISTIC_FLAG and value is True:
                self._deterministic.append(self.context.flow.event(node))

    def visit_Call(self, node: cst.Call) -> None:
        if not node.args or self.context.call_name(node) not in _DETERMINISTIC_CALLS:
            return
        mode = node.args[0]
        if (mode.keyword is None or mode.keyword.value == "mode") and literal_bool(mode.value) is True:
            self._deterministic.append(self.context.flow.event(node))

    # ------------------------------------------------------------ decision at the end
    def leave_Module(self, node: cst.Module) -> None:
        if not self._fast:
            return
        # the binder gives no parent to an attribute's or a keyword's name, and binds a `def`'s
        binder = self.context.binder
        is_variable = lambda name: binder.parent(name) is not None and binder.binding_made_by(name) is None
        self._references = [reference for reference in self._references if is_variable(reference.event.node)]
        for fast in self._fast:
            if any(self._conflicts(fast, deterministic) for deterministic in self._deterministic):
                self.report(fast.node)
                continue
            across = next(
                (d for d in self._deterministic if d.function is not fast.function and self._conflicts_across(fast, d)), None
            )
            if across is not None:
                self.report(fast.node, self._across_message(across))

    def _conflicts(self, fast: Event, deterministic: Event) -> bool:
        if fast.function is not deterministic.function or fast.exclusive_with(deterministic):
            return False
        return not self._chosen(deterministic)

    def _chosen(self, deterministic: Event, after: int = 0) -> bool:
        """`benchmark = False` wherever the deterministic setting runs (after ``after``): the code chose."""
        return any(
            slow.function is deterministic.function and slow.order > after and not slow.exclusive_with(deterministic)
            for slow in self._slow
        )

    def _conflicts_across(self, fast: Event, deterministic: Event) -> bool:
        """The two settings are in different functions of the module that run in one program."""
        if not (self._is_top_level(fast.function) and self._is_top_level(deterministic.function)):
            return False
        # the deterministic function starts the fast one (main() -> mp.spawn(main_worker))
        for reference in self._leading_to(deterministic.function, fast.function):
            if not reference.event.exclusive_with(deterministic) and not self._chosen(deterministic, reference.event.order):
                return True
        # the fast function calls the deterministic one: fine only if that one turns benchmark off
        for reference in self._leading_to(fast.function, deterministic.function):
            after_the_call = fast.order > reference.event.order
            if not reference.event.exclusive_with(fast) and (after_the_call or not self._chosen(deterministic)):
                return True
        return self._called_together(fast, deterministic)

    def _called_together(self, fast: Event, deterministic: Event) -> bool:
        """A third function (or the module) calls both on one path, the deterministic one
        first (or without the deterministic function turning benchmark off)."""
        for caller in {reference.event.function for reference in self._references}:
            if caller is fast.function or caller is deterministic.function:
                continue
            for to_fast in self._leading_to(caller, fast.function):
                for to_deterministic in self._leading_to(caller, deterministic.function):
                    if to_fast.event.exclusive_with(to_deterministic.event):
                        continue
                    if to_deterministic.event.order < to_fast.event.order or not self._chosen(deterministic):
                        return True
        return False

    def _is_top_level(self, function: cst.FunctionDef | None) -> bool:
        """Module level, or a function defined there (a method's callers are not followed)."""
        return function is None or self._functions.get(function.name.value) is function

    def _leading_to(self, caller: cst.FunctionDef | None, target: cst.FunctionDef | None) -> list[_Reference]:
        """The references in ``caller`` to functions from which ``target`` is reached."""
        if target is None:
            return []
        return [
            reference
            for reference in self._references
            if reference.event.function is caller and target in self._reached_from(reference.function)
        ]

    def _reached_from(self, function: cst.FunctionDef) -> set[cst.FunctionDef]:
        reached = {function}
        pending = [function]
        while pending:
            current = pending.pop()
            for reference in self._references:
                if reference.event.function is current and reference.function not in reached:
                    reached.add(reference.function)
                    pending.append(reference.function)
        return reached

    def _across_message(self, deterministic: Event) -> str:
        function = deterministic.function
        where = f"in `{function.name.value}()`" if function is not None else "at module level"
        setting = " ".join(source_text(deterministic.node).split())
        return _ACROSS_FUNCTIONS.format(setting=setting, where=where, line=self.context.line_of(deterministic.node))
