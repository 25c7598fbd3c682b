from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.exports import call_shape
from torchcheck.lint.flow import Event, encloses
from torchcheck.lint.handed import handed_to_imported_helper
from torchcheck.lint.idioms import Effect
from torchcheck.lint.kinds import Kind
from torchcheck.lint.nodes import dotted_name
from torchcheck.lint.project import MUST, NONE, PLACE, Condition
from torchcheck.lint.rule import Invalid, Rule, Valid
from torchcheck.lint.steps import step_of
from torchcheck.lint.summaries import ANONYMOUS, Certainty, FunctionSummary, Site, spelled
from torchcheck.rules.training._common import receiver_text

_BACKWARD = "backward"
_ZERO_GRAD = "zero_grad"
_STEP = "step"
_CALL = "call"
_OPAQUE = "opaque"  # a helper that backpropagates or steps: what happens inside is not ordered here

_THROUGH_HELPER = "{site} runs after `backward()` and before `step()`; the step sees no gradients"


@dataclass(frozen=True)
class _Fact:
    what: str  # backward / zero_grad / step / call / opaque
    event: Event
    target: str | None = None  # zero_grad: its receiver; step: the optimizer stepped; call: the callee
    receiver_kind: Kind | None = None
    usable: bool = False  # step: known to step an optimizer with the gradients in .grad
    site: Site | None = None  # zero_grad done by a helper: where
    # zero_grad by a helper of another file of the project: the conditions under which it
    # clears the gradients and does nothing else of the protocol (decided by the project index)
    conditions: tuple[Condition, ...] = ()


class ZeroGradBetweenBackwardAndStep(Rule):
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
    closure passed to `step(closure)`. A helper function that always clears the gradients
    (`reset_grad(optimizer)`), defined in the same file or imported from another file of the
    project, is reported where it is called.

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
    # a backward() here is needed; the zero_grad() may be in a helper of another file
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
        Valid(
            """
def reset_grad():
    d_optimizer.zero_grad()
    g_optimizer.zero_grad()

for real, noise in loader:
    reset_grad()
    d_loss = discriminator_loss(real, noise)
    d_loss.backward()
    d_optimizer.step()
    reset_grad()
    g_loss = generator_loss(noise)
    g_loss.backward()
    g_optimizer.step()
"""
        ),
        Valid(
            """
def update(optimizer):
    optimizer.step()
    optimizer.zero_grad()

for x, y in loader:
    criterion(model(x), y).backward()
    update(optimizer)
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
        Invalid(
            """
def reset_grad():
    optimizer.zero_grad()

for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    reset_grad()  # TCK103
    optimizer.step()
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._facts: list[_Fact] = []

    def event(self, node: cst.CSTNode) -> Event:
        return self.context.flow.event(node)

    def visit_Call(self, node: cst.Call) -> None:
        summary = self.context.call_summary(node)
        if summary is not None and self._helper_fact(node, summary):
            return
        self._imported_helper_fact(node)
        func = node.func
        method = func.attr.value if isinstance(func, cst.Attribute) else None
        if method == _BACKWARD:
            self._facts.append(_Fact(_BACKWARD, self.event(node)))
        elif method == _ZERO_GRAD:
            kind = self.context.kind_of(func.value)  # type: ignore[attr-defined]
            self._facts.append(_Fact(_ZERO_GRAD, self.event(node), receiver_text(node), kind))
        elif method == _STEP:
            step = step_of(self.context, node)
            if step is not None and step.receiver_kind is not Kind.SCHEDULER:
                # step(closure) recomputes the gradients itself (LBFGS): it sees what the closure made
                self._facts.append(_Fact(_STEP, self.event(node), step.optimizer, step.receiver_kind, not step.closure))
        elif isinstance(func, (cst.Name, cst.Attribute)) and not self.context.grad_maybe_disabled:
            callee = func.value if method == "forward" else func  # type: ignore[attr-defined]
            self._facts.append(_Fact(_CALL, self.event(node), dotted_name(callee)))

    def _helper_fact(self, call: cst.Call, summary: FunctionSummary) -> bool:
        """A helper that always clears gradients and does nothing else of the protocol is a
        ``zero_grad()`` at its call; one that backpropagates or steps hides its order."""
        if summary.does(Effect.BACKWARD) or summary.does(Effect.STEP):
            self._facts.append(_Fact(_OPAQUE, self.event(call)))
            return True
        zero = summary.effect(Effect.ZERO_GRAD, certainty=Certainty.MUST)
        if zero is None:
            return False
        target = zero.target if zero.target != ANONYMOUS else None
        kind = self.context.kind_of(spelled(target)) if target is not None else None
        self._facts.append(_Fact(_ZERO_GRAD, self.event(call), target, kind, site=zero.site))
        return True

    def _imported_helper_fact(self, call: cst.Call) -> None:
        """A helper of another file of the project handed an optimizer or a module: a
        ``zero_grad()`` at its call if the project index says it always clears its gradients."""
        handed = handed_to_imported_helper(self.context, call, (Kind.OPTIMIZER, Kind.MODULE))
        if handed is not None:
            helper, name, kind = handed
            clears = Condition(helper, f"effect:{_ZERO_GRAD}:{name}", MUST, call_shape(call))
            only_clears = Condition(helper, f"does:{_BACKWARD},{_STEP}", NONE, call_shape(call))
            self._facts.append(_Fact(_ZERO_GRAD, self.event(call), name, kind, conditions=(clears, only_clears)))

    def leave_Module(self, node: cst.Module) -> None:
        groups: dict[object, list[_Fact]] = {}
        for fact in self._facts:
            groups.setdefault(fact.event.iteration, []).append(fact)
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
                self._report(fact)

    def _report(self, fact: _Fact) -> None:
        if fact.conditions:
            self.report(fact.event.node, _THROUGH_HELPER.format(site=PLACE), conditions=fact.conditions)
        elif fact.site is None:
            self.report(fact.event.node)
        else:
            self.report(fact.event.node, _THROUGH_HELPER.format(site=fact.site.describe(self.context.line_of)))

    @staticmethod
    def _after_backward(facts: list[_Fact], index: int) -> bool:
        """A backward ran earlier in this pass with no optimizer step since."""
        zero = facts[index].event
        for fact in reversed(facts[:index]):
            if fact.event.exclusive_with(zero):
                continue
            if fact.what in (_STEP, _OPAQUE):
                return False
            if fact.what == _BACKWARD:
                return True
        return False

    def _before_step(self, facts: list[_Fact], index: int, optimizers: set[str | None]) -> bool:
        """The cleared optimizer steps later in this pass with no backward in between."""
        zero = facts[index]
        for fact in facts[index + 1 :]:
            if fact.event.exclusive_with(zero.event):
                continue
            if fact.what in (_BACKWARD, _OPAQUE):
                return False
            if fact.what == _STEP and fact.usable and self._same_optimizer(zero, fact, facts[:index], optimizers):
                return encloses(zero.event.path, fact.event.path)
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

