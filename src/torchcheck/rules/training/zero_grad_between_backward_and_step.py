from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from torchcheck.lint.context import Kind, LintContext, dotted_name
from torchcheck.lint.rule import Invalid, Valid
from torchcheck.rules.training._common import Event, FlowRule, exclusive, is_prefix, receiver_text

_BACKWARD = "backward"
_ZERO_GRAD = "zero_grad"
_STEP = "step"
_CALL = "call"


@dataclass(frozen=True)
class _Fact:
    what: str  # backward / zero_grad / step / call
    event: Event
    target: str | None = None  # zero_grad: its receiver; step: the optimizer stepped; call: the callee
    receiver_kind: Kind | None = None
    usable: bool = False  # step: known to step an optimizer with the gradients in .grad


class ZeroGradBetweenBackwardAndStep(FlowRule):
    """
    ## What it does
    Checks for `zero_grad()` executed after `.backward()` and before the optimizer's
    `step()` in the same iteration (or the same step function).

    ## Why is this bad?
    `backward()` writes the gradients into `.grad`, `zero_grad()` erases them and `step()`
    then updates the parameters from zero (or `None`) gradients: the model never learns, and
    momentum or weight decay keep moving the weights anyway. The slip is typical of
    gradient-accumulation loops, where the `zero_grad()` ends up just above the `step()`.
    Clear gradients before `backward()`, or after `step()`.

    A `zero_grad()` that only runs on a branch that skips the update (`if overflow:
    optimizer.zero_grad(); continue`) is not reported; neither is one inside an LBFGS-style
    closure passed to `step(closure)`.

    ## Example
    ```python
    for i, (x, y) in enumerate(loader):
        loss = criterion(model(x), y) / accumulation_steps
        loss.backward()
        if (i + 1) % accumulation_steps == 0:
            optimizer.zero_grad()
            optimizer.step()
    ```

    Use instead:
    ```python
    for i, (x, y) in enumerate(loader):
        loss = criterion(model(x), y) / accumulation_steps
        loss.backward()
        if (i + 1) % accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    ```

    ## Fix safety
    There is no automatic fix: whether the `zero_grad()` belongs before the `backward()` or
    after the `step()` depends on whether the loop accumulates gradients.

    ## References
    - [`torch.optim.Optimizer.zero_grad`](https://pytorch.org/docs/stable/generated/torch.optim.Optimizer.zero_grad.html)
    - [PyTorch tutorial: optimizing model parameters](https://pytorch.org/tutorials/beginner/basics/optimization_tutorial.html)
    """

    code = "TCK103"
    name = "zero-grad-between-backward-and-step"
    message = "`zero_grad()` runs after `backward()` and before `step()`; the step sees no gradients"
    required_text = ("zero_grad",)

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
        optimizer.zero_grad()
"""
        ),
        Valid(
            """
for x, y in loader:
    model.zero_grad()
    criterion(model(x), y).backward()
    optimizer.step()
"""
        ),
        Valid(
            """
import torch
optimizer = torch.optim.LBFGS(model.parameters())
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
    scaler.scale(loss_fn(model(x), y)).backward()
    if not grads_are_finite(model):
        optimizer.zero_grad()
        continue
    scaler.step(optimizer)
    scaler.update()
"""
        ),
        Valid(
            """
for x, y in loader:
    loss.backward()
    if skip_update:
        optimizer.zero_grad()
    else:
        optimizer.step()
"""
        ),
        Valid(
            """
for real, noise in loader:
    netD.zero_grad()
    errD = criterion(netD(real), ones) + criterion(netD(netG(noise).detach()), zeros)
    errD.backward()
    optimizerD.step()
    netG.zero_grad()
    errG = criterion(netD(netG(noise)), ones)
    errG.backward()
    optimizerG.step()
"""
        ),
        Valid(
            """
for x in loader:
    d_loss.backward()
    g_optimizer.zero_grad()
    d_optimizer.step()
    g_loss.backward()
    g_optimizer.step()
"""
        ),
        Valid(
            """
import torch
for x, y in loader:
    with torch.no_grad():
        target = teacher(x)
    loss = criterion(model(x), target)
    loss.backward()
    teacher.zero_grad()
    optimizer.step()
"""
        ),
    )
    INVALID = (
        Invalid(
            """
for i, (x, y) in enumerate(loader):
    loss = criterion(model(x), y) / accumulation_steps
    loss.backward()
    if (i + 1) % accumulation_steps == 0:
        optimizer.zero_grad()  # TCK103
        optimizer.step()
"""
        ),
        Invalid(
            """
class Trainer:
    def train_step(self, batch):
        loss = self.model(batch).mean()
        self.scaler.scale(loss).backward()
        self.optimizer.zero_grad(set_to_none=True)  # TCK103
        self.scaler.step(self.optimizer)
        self.scaler.update()
"""
        ),
        Invalid(
            """
import torch
opt = torch.optim.Adam(net.parameters())
for epoch in range(10):
    for x, y in loader:
        loss = criterion(net(x), y)
        loss.backward()
    net.zero_grad()  # TCK103
    opt.step()
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._facts: list[_Fact] = []

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute):
            if isinstance(func, cst.Name) and not self.context.grad_maybe_disabled:
                self._facts.append(_Fact(_CALL, self.event(node), func.value))
            return
        method = func.attr.value
        if method == _BACKWARD:
            self._facts.append(_Fact(_BACKWARD, self.event(node)))
        elif method == _ZERO_GRAD:
            kind = self.context.kind_of(func.value)
            self._facts.append(_Fact(_ZERO_GRAD, self.event(node), receiver_text(node), kind))
        elif method == _STEP:
            self._record_step(node, func)
        elif not self.context.grad_maybe_disabled:
            callee = func.value if method == "forward" else func
            self._facts.append(_Fact(_CALL, self.event(node), dotted_name(callee)))

    def _record_step(self, node: cst.Call, func: cst.Attribute) -> None:
        kind = self.context.kind_of(func.value)
        if kind is Kind.SCHEDULER:
            return
        positional = [argument for argument in node.args if argument.keyword is None]
        if kind is Kind.SCALER and positional:
            target, usable = dotted_name(positional[0].value), True
        else:
            # step(closure) recomputes the gradients itself (LBFGS): it sees what the closure made
            target, usable = receiver_text(node), not positional
        self._facts.append(_Fact(_STEP, self.event(node), target, kind, usable))

    def leave_Module(self, node: cst.Module) -> None:
        groups: dict[object, list[_Fact]] = {}
        for fact in self._facts:
            groups.setdefault(fact.event.group, []).append(fact)
        for facts in groups.values():
            self._resolve(facts)

    def _resolve(self, facts: list[_Fact]) -> None:
        optimizers = {
            fact.target for fact in facts if fact.what == _STEP and fact.usable and fact.receiver_kind in (Kind.OPTIMIZER, Kind.SCALER)
        }
        for index, fact in enumerate(facts):
            if fact.what != _ZERO_GRAD or fact.receiver_kind is Kind.SCHEDULER:
                continue
            if self._after_backward(facts, index) and self._before_step(facts, index, optimizers):
                self.report(fact.event.node)

    @staticmethod
    def _after_backward(facts: list[_Fact], index: int) -> bool:
        """A backward ran earlier in this pass with no optimizer step since."""
        zero = facts[index].event
        for fact in reversed(facts[:index]):
            if exclusive(fact.event.path, zero.path):
                continue
            if fact.what == _STEP:
                return False
            if fact.what == _BACKWARD:
                return True
        return False

    def _before_step(self, facts: list[_Fact], index: int, optimizers: set[str | None]) -> bool:
        """The cleared optimizer steps later in this pass with no backward in between."""
        zero = facts[index]
        for fact in facts[index + 1 :]:
            if exclusive(fact.event.path, zero.event.path):
                continue
            if fact.what == _BACKWARD:
                return False
            if fact.what == _STEP and fact.usable and self._same_optimizer(zero, fact, facts[:index], optimizers):
                return is_prefix(zero.event.path, fact.event.path)
        return False

    @staticmethod
    def _same_optimizer(zero: _Fact, step: _Fact, earlier: list[_Fact], optimizers: set[str | None]) -> bool:
        if zero.target is not None and zero.target == step.target:
            return True
        if zero.receiver_kind is not Kind.MODULE or step.receiver_kind not in (Kind.OPTIMIZER, Kind.SCALER):
            return False
        # `model.zero_grad()` clears what the optimizer steps only if it is the trained model:
        # one optimizer in the loop, and the module ran with gradients enabled before.
        return len(optimizers) == 1 and any(
            fact.what == _CALL and fact.target == zero.target for fact in earlier
        )

