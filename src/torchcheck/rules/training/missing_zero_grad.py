from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from torchcheck.lint.context import Kind, LintContext, Loop
from torchcheck.lint.rule import Invalid, Rule, Valid


@dataclass(frozen=True)
class _Step:
    call: cst.Call
    loops: tuple[Loop, ...]


class MissingZeroGrad(Rule):
    """
    ## What it does
    Checks for training loops that call `.backward()` and `optimizer.step()` but never
    clear gradients with `optimizer.zero_grad()` or `model.zero_grad()` (in the loop or in a
    loop around it).

    ## Why is this bad?
    `.backward()` adds into `.grad`; it does not overwrite it. Without `zero_grad()` every
    step uses the sum of all gradients computed so far, so updates grow without bound and
    training diverges or silently learns nothing. Clear gradients once per optimizer step:
    before `backward()`, or right after `step()` (the usual gradient-accumulation pattern).

    ## Example
    ```python
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    ```

    Use instead:
    ```python
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    ```

    ## Fix safety
    There is no automatic fix: where gradients should be cleared depends on whether the
    loop accumulates gradients over several batches.

    ## References
    - [`torch.optim.Optimizer.zero_grad`](https://pytorch.org/docs/stable/generated/torch.optim.Optimizer.zero_grad.html)
    - [PyTorch tutorial: optimizing model parameters](https://pytorch.org/tutorials/beginner/basics/optimization_tutorial.html)
    """

    code = "TCK102"
    name = "missing-zero-grad"
    message = "Loop calls `backward()` and `step()` but never `zero_grad()`; gradients add up across steps"
    required_text = ("backward",)

    VALID = (
        Valid(
            """
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
"""
        ),
        Valid(
            """
for i, (x, y) in enumerate(loader):
    loss = criterion(model(x), y) / accumulation_steps
    loss.backward()
    if (i + 1) % accumulation_steps == 0:
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
"""
        ),
        Valid(
            """
for epoch in range(epochs):
    model.zero_grad()
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
    optimizer.step()
"""
        ),
        Valid(
            """
for x, y in loader:
    def closure():
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        return loss
    optimizer.step(closure)
"""
        ),
        Valid(
            """
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    for p in model.parameters():
        p.grad = None
"""
        ),
        Valid(
            """
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    scheduler.step()
"""
        ),
    )
    INVALID = (
        Invalid(
            """
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()  # TCK102
"""
        ),
        Invalid(
            """
import torch
opt = torch.optim.SGD(model.parameters(), lr=0.1)
step = 0
while step < 100:
    out = model(batch)
    out.sum().backward()
    opt.step()  # TCK102
    step += 1
"""
        ),
        Invalid(
            """
class Trainer:
    def fit(self):
        for batch in self.train_loader:
            loss = self.model(batch).mean()
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)  # TCK102
            self.scaler.update()
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._steps: list[_Step] = []
        self._zeroed_loops: set[Loop] = set()

    def visit_Call(self, node: cst.Call) -> None:
        loops = self.context.loops
        if not loops or not isinstance(node.func, cst.Attribute):
            return
        method = node.func.attr.value
        if "zero_grad" in method or (method == "zero_" and _is_grad(node.func.value)):
            self._zeroed_loops.update(loops)
        elif method == "step" and self._steps_an_optimizer(node):
            self._steps.append(_Step(node, loops))

    def visit_Assign(self, node: cst.Assign) -> None:
        if any(_is_grad(target.target) for target in node.targets):
            self._zeroed_loops.update(self.context.loops)

    def _steps_an_optimizer(self, call: cst.Call) -> bool:
        receiver = self.context.kind_of(call.func.value)  # type: ignore[attr-defined]
        if receiver is Kind.OPTIMIZER:
            return not call.args  # step(closure) is LBFGS-style: the closure clears gradients
        return receiver is Kind.SCALER and bool(call.args) and self.context.kind_of(call.args[0].value) is Kind.OPTIMIZER

    def leave_For(self, node: cst.For) -> None:
        self._resolve(node)

    def leave_While(self, node: cst.While) -> None:
        self._resolve(node)

    def _resolve(self, loop: Loop) -> None:
        """Decide once the outermost loop is complete: an outer loop may clear gradients further down."""
        ready = [step for step in self._steps if step.loops[0] is loop]
        if not ready:
            return
        for step in ready:
            if self.context.is_training_loop(step.loops[-1]) and not self._zeroed_loops.intersection(step.loops):
                self.report(step.call)
        self._steps = [step for step in self._steps if step.loops[0] is not loop]


def _is_grad(expression: cst.BaseExpression) -> bool:
    return isinstance(expression, cst.Attribute) and expression.attr.value == "grad"
