from __future__ import annotations

import re
from dataclasses import dataclass, field

import libcst as cst

from torchcheck.lint.context import LintContext, Loop
from torchcheck.lint.flow import BODY, LOOP, Branch, Event
from torchcheck.lint.idioms import Effect
from torchcheck.lint.kinds import Kind
from torchcheck.lint.nodes import handles_gradients, one_line, passes_once, source_text
from torchcheck.lint.project import Condition
from torchcheck.lint.rule import Invalid, Rule, Valid
from torchcheck.lint.steps import step_of
from torchcheck.lint.summaries import ANONYMOUS, Certainty, FunctionSummary
from torchcheck.rules.training._common import receiver_text

_MESSAGE = ("{zero_grad} clears the gradients on every micro-batch, but `{step}` runs only when `{condition}` "
            "(line {line}): the step sees only the last micro-batch's gradients")
_AFTER_THE_LOOP = ("{zero_grad} clears the gradients on every pass of the loop that backpropagates, but `{step}` runs "
                   "only after the loop (line {line}): the step sees only the last pass's gradients")
_THROUGH_HELPER = "`{call}` (which calls {site})"
_IN_A_WINDOW = ("{zero_grad} runs on every micro-batch of `{window}`, which skips only the prepared optimizer's "
                "`zero_grad()` and `step()` until the last one; clear through the optimizer")
# Tests that let only some iterations through to the optimizer step: `(i + 1) % accum == 0`,
# `step % args.gradient_accumulation_steps == 0`, `accelerator.sync_gradients`, `should_step`.
_ACCUMULATION_WORDS = re.compile(r"accum|sync_grad|(?:should|do|need|time_to)_?(?:step|update|optim)", re.IGNORECASE)
_NOT_OPTIMIZERS = frozenset({Kind.SCHEDULER, Kind.MODULE, Kind.TENSOR, Kind.GRAPH_TENSOR, Kind.DATALOADER})


@dataclass(frozen=True)
class _ZeroGrad:
    event: Event
    target: str | None  # the optimizer or module cleared, as the loop names it
    kind: Kind | None
    text: str  # for the message: the call, or the helper call and where it clears


@dataclass(frozen=True)
class _Step:
    event: Event
    optimizer: str | None
    kind: Kind | None


@dataclass
class _LoopFacts:
    zero_grads: list[_ZeroGrad] = field(default_factory=list)
    steps: list[_Step] = field(default_factory=list)
    backwards: list[Event] = field(default_factory=list)


def _is_accumulation_test(test: cst.BaseExpression) -> bool:
    text = source_text(test)
    return "%" in text or _ACCUMULATION_WORDS.search(text) is not None


def _inside(path: tuple[Branch, ...], loop: Loop) -> tuple[Branch, ...]:
    """The branches of ``path`` inside the body of ``loop`` (the part below one iteration)."""
    for index in range(len(path) - 1, -1, -1):
        if path[index].owner is loop and path[index].label == LOOP:
            return path[index + 1 :]
    return ()


def _iteration_loop(event: Event) -> Loop:
    """The innermost loop around a step or clear that is not a fan-out over the optimizers
    (``for optimizer in optimizers: optimizer.step()``): one of its passes is one iteration."""
    call = event.node
    receiver = call.func.value if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) else None
    for loop in reversed(event.loops[1:]):
        if not (isinstance(loop, cst.For) and isinstance(loop.target, cst.Name) and isinstance(receiver, cst.Name) and loop.target.value == receiver.value):
            return loop
    return event.loops[0]


def _accumulation_gate(step: Event) -> Branch | None:
    """The ``if`` inside the step's iteration loop that lets only some iterations step."""
    for branch in _inside(step.path, _iteration_loop(step)):
        if isinstance(branch.owner, cst.If) and _is_accumulation_test(branch.owner.test):
            return branch
    return None


class ZeroGradEveryMicroBatch(Rule):
    """
    ## What it does
    Checks for gradient-accumulation loops that call `zero_grad()` on every iteration while
    `optimizer.step()` runs only under an accumulation condition (`if (i + 1) % n == 0:`).
    A framework's accumulation window is such a condition: inside `with
    accelerator.accumulate(model):` Accelerate skips the prepared optimizer's `step()` and
    `zero_grad()` until the window's last micro-batch, but not a module's `model.zero_grad()`.

    ## Why is this bad?
    Gradient accumulation works because `.backward()` adds into `.grad`: several micro-batches
    add their gradients up and one `step()` applies the sum, as if the batch were `n` times
    larger. A `zero_grad()` that runs on every iteration erases the sum each time, so the
    step only ever sees the last micro-batch's gradients (divided by `n`, when the loss is
    scaled for accumulation). Training runs without any error, as plain small-batch training
    with an `n` times smaller learning rate and `n` times fewer updates. Clear the gradients
    under the same condition as the step, right after it.

    A `zero_grad()` between the `backward()` and the `step()` is reported by TCK103 instead.
    `zero_grad()` done by a helper function of the same file counts and is reported at the
    helper's call. A Lightning module's `training_step` is one iteration of the framework's
    loop (manual optimisation: `self.manual_backward(loss)`, then `opt.step()` under the
    accumulation condition). A loop where each optimizer clears what it steps under its own condition
    (a GAN whose generator steps every `n_critic` iterations) is not reported, nor one whose
    step has its own backward under the same condition (the gradients it applies are
    computed only when it steps; a `zero_grad()` on every iteration clears what other
    losses left in them).

    ## Example
    ```python
    for i, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        loss = criterion(model(x), y) / accumulation_steps
        loss.backward()
        if (i + 1) % accumulation_steps == 0:
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
    There is no automatic fix: the `zero_grad()` has to move under the accumulation
    condition, and what else belongs there only the author knows.

    ## References
    - [`optimizer.zero_grad()` at the start of each iteration discards the accumulated gradient (huggingface/accelerate#1299)](https://github.com/huggingface/accelerate/issues/1299)
    - [`zero_grad()` called before every virtual step erases the accumulated gradients (meta-pytorch/opacus#93)](https://github.com/meta-pytorch/opacus/issues/93)
    - [Fix gradient accumulation zero grad (pytorch/torchtitan#3575)](https://github.com/pytorch/torchtitan/pull/3575)
    """

    code = "TCK111"
    name = "zero-grad-every-micro-batch"
    message = "`zero_grad()` runs on every micro-batch but `step()` only under the accumulation condition"
    required_text = ("zero_grad",)

    VALID = (
        Valid(
            """
def projected_step(model, optimizer, task_losses):
    grads = []
    for loss in task_losses:  # one gradient per task, combined by hand before the step
        optimizer.zero_grad()
        loss.backward(retain_graph=True)
        grads.append([p.grad.clone() for p in model.parameters()])
    set_projected_gradients(model, grads)
    optimizer.step()
"""
        ),
        Valid(
            """
import torch

class Learner(torch.nn.Module):
    def update(self, loss):
        (loss / self.accumulation).backward()
        self.calls += 1
        if self.calls % self.accumulation == 0:
            for optimizer in self.optimizers:
                optimizer.step()
                optimizer.zero_grad()

    def refresh(self):
        for optimizer in self.optimizers:
            optimizer.zero_grad()
            optimizer.step()
"""
        ),
        Valid(
            """
for i, (real, noise) in enumerate(loader):
    optimizer_G.zero_grad()
    fake = generator(noise)
    if i % n_skip == 0:
        generator_loss(fake).backward(retain_graph=True)
        optimizer_G.step()
    optimizer_D.zero_grad()
    critic_loss(real, fake).backward()
    optimizer_D.step()
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
for i, (x, y) in enumerate(loader):
    if i % accumulation_steps == 0:
        optimizer.zero_grad()
    criterion(model(x), y).backward()
    if (i + 1) % accumulation_steps == 0:
        optimizer.step()
"""
        ),
        Valid(
            """
for i, (real, noise) in enumerate(loader):
    optimizer_D.zero_grad()
    critic_loss(real, noise).backward()
    optimizer_D.step()
    if i % n_critic == 0:
        optimizer_G.zero_grad()
        generator_loss(noise).backward()
        optimizer_G.step()
"""
        ),
        Valid(
            """
for i, (real, noise) in enumerate(loader):
    netD.zero_grad()
    critic_loss(real, noise).backward()
    optimizerD.step()
    if i % n_critic == 0:
        netG.zero_grad()
        generator_loss(noise).backward()
        optimizerG.step()
"""
        ),
        Valid(
            """
for x, y in loader:
    optimizer.zero_grad()
    criterion(model(x), y).backward()
    if not grads_are_finite(model):
        continue
    optimizer.step()
"""
        ),
        Valid(
            """
for i, (x, y) in enumerate(loader):
    optimizer.zero_grad()
    if (i + 1) % accumulation_steps == 0:
        criterion(model(x), y).backward()
        optimizer.step()
"""
        ),
        Valid(
            """
for epoch in range(epochs):
    optimizer.zero_grad()
    for i, (x, y) in enumerate(loader):
        criterion(model(x), y).backward()
        if (i + 1) % accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
"""
        ),
        Valid(
            """
def train_step(model, optimizer, batch, parts):
    while parts <= len(batch):
        try:
            optimizer.zero_grad()
            for piece in batch.split(len(batch) // parts):
                (model(piece).sum() / parts).backward()
        except torch.cuda.OutOfMemoryError:
            parts *= 2
        else:
            break
    optimizer.step()
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch.nn.functional as F

class Trainer:
    def accumulate(self, micro_batches):
        for micro in micro_batches:
            self.optimizer.zero_grad(set_to_none=True)  # TCK111
            F.mse_loss(self.model(micro.x), micro.y).backward()
        if not self.accumulating:
            self.optimizer.step()
"""
        ),
        Invalid(
            """
import torch

class Learner(torch.nn.Module):
    def update(self, loss):
        for optimizer in self.optimizers:
            optimizer.zero_grad()  # TCK111
        (loss / self.accumulation).backward()
        self.calls += 1
        if self.calls % self.accumulation == 0:
            for optimizer in self.optimizers:
                optimizer.step()
"""
        ),
        Invalid(
            """
import torch
from accelerate import Accelerator

accelerator = Accelerator(gradient_accumulation_steps=4)
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.AdamW(model.parameters())
model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
for x, y in loader:
    with accelerator.accumulate(model):
        accelerator.backward(model(x).sub(y).pow(2).mean())
        optimizer.step()
        model.zero_grad()  # TCK111
        optimizer.zero_grad()
"""
        ),
        Invalid(
            """
for i, (x, y) in enumerate(loader):
    optimizer.zero_grad()  # TCK111
    loss = criterion(model(x), y) / accumulation_steps
    loss.backward()
    if (i + 1) % accumulation_steps == 0:
        optimizer.step()
"""
        ),
        Invalid(
            """
class Trainer:
    def train_epoch(self):
        for step, batch in enumerate(self.train_loader):
            loss = self.model(**batch).loss / self.args.gradient_accumulation_steps
            self.scaler.scale(loss).backward()
            if (step + 1) % self.args.gradient_accumulation_steps == 0:
                self.scaler.step(self.optimizer)
                self.scaler.update()
            self.optimizer.zero_grad()  # TCK111
"""
        ),
        Invalid(
            """
import torch

def reset(optimizer):
    optimizer.zero_grad(set_to_none=True)

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for i, (x, y) in enumerate(loader):
    reset(optimizer)  # TCK111
    model(x).sub(y).pow(2).mean().backward()
    if (i + 1) % 4 == 0:
        optimizer.step()
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._clearing_loops: list[tuple[_ZeroGrad, Loop]] = []  # each pass clears and backpropagates, and steps nothing
        self._steps: list[_Step] = []  # every step of the file, in walk order

    def _facts(self) -> _LoopFacts:
        if not self.context.loops:
            return _LoopFacts()  # a step outside loops is kept in self._steps alone
        return self.context.flow.loop_facts(self, _LoopFacts)

    def visit_Call(self, node: cst.Call) -> None:
        summary = self.context.call_summary(node)
        if not self.context.loops and not (summary is not None or isinstance(node.func, cst.Attribute) and node.func.attr.value == "step"):
            return
        if summary is not None:
            self._helper(node, summary)
            return
        if not isinstance(node.func, cst.Attribute):
            return
        method = node.func.attr.value
        if method == "zero_grad":
            receiver = node.func.value
            self._facts().zero_grads.append(
                _ZeroGrad(self.context.flow.event(node), receiver_text(node), self.context.kind_of(receiver), f"`{one_line(node)}`")
            )
        elif method == "step":
            self._record_step(node)
        elif self.context.backward_subject(node) is not None:  # `loss.backward()`, `self.manual_backward(loss)` ...
            self._facts().backwards.append(self.context.flow.event(node))

    def _record_step(self, call: cst.Call) -> None:
        step = step_of(self.context, call)
        # `optimizer.step(closure)`: the closure clears and recomputes the gradients
        if step is not None and step.receiver_kind not in _NOT_OPTIMIZERS and not step.closure:
            kind = Kind.OPTIMIZER if step.through_scaler else step.receiver_kind
            self._note_step(_Step(self.context.flow.event(call), step.optimizer, kind))

    def _note_step(self, step: _Step) -> None:
        self._facts().steps.append(step)
        self._steps.append(step)

    def _helper(self, call: cst.Call, summary: FunctionSummary) -> None:
        """A helper of this file that clears gradients on every call counts as a ``zero_grad()``
        there; one that backpropagates or steps counts as doing that."""
        facts = self._facts()
        event = self.context.flow.event(call)
        if summary.does(Effect.BACKWARD):
            facts.backwards.append(event)
        step = summary.effect(Effect.STEP, certainty=Certainty.MUST)
        if step is not None and step.target != ANONYMOUS:
            self._note_step(_Step(event, step.target, Kind.OPTIMIZER))
        zero = summary.effect(Effect.ZERO_GRAD, certainty=Certainty.MUST)
        if zero is not None and zero.target != ANONYMOUS and step is None:
            text = _THROUGH_HELPER.format(call=one_line(call), site=zero.site.describe(self.context.line_of))
            facts.zero_grads.append(_ZeroGrad(event, zero.target, Kind.OPTIMIZER, text))

    def leave_loop(self, loop: Loop) -> None:
        facts = self._facts()
        reported = self._module_cleared_in_a_window(facts)
        gated = [(step, gate) for step in facts.steps if (gate := _accumulation_gate(step.event)) is not None]
        for step, gate in gated:
            for zero in facts.zero_grads:
                if zero.event.node not in reported and self._clears_what_steps(zero, step, gate, facts):
                    self._report(zero, step, gate)
                    reported.add(zero.event.node)
        self._clearing_loops += [(zero, loop) for zero in facts.zero_grads if zero.event.node not in reported and (loop := self._clears_each_pass(zero, facts))]

    def _clears_each_pass(self, zero: _ZeroGrad, facts: _LoopFacts) -> Loop | None:
        """The loop each pass of which clears, then backpropagates, and steps nothing, and
        does nothing with the gradients itself; None when ``zero`` is not in such a loop."""
        loop = _iteration_loop(zero.event)
        if any(branch.is_conditional for branch in _inside(zero.event.path, loop)) or any(loop in step.event.loops for step in facts.steps):
            return None
        backpropagates = any(event.function is zero.event.function and loop in event.loops and event.order > zero.event.order for event in facts.backwards)
        retry = type(loop) is not cst.FunctionDef and passes_once(loop)
        return loop if backpropagates and not handles_gradients(loop) and not retry else None

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._report_steps_after_loops(node)

    def leave_Module(self, node: cst.Module) -> None:
        self._report_steps_after_loops(None)

    def _report_steps_after_loops(self, function: cst.FunctionDef | None) -> None:
        """A loop whose every pass clears and backpropagates, followed by the step: only the
        last pass's gradients are stepped."""
        for zero, loop in [entry for entry in self._clearing_loops if entry[0].event.function is function]:
            later = [step for step in self._steps if step.event.function is function and step.event.order > zero.event.order and loop not in step.event.loops]
            optimizers = {step.optimizer for step in later if step.kind in (Kind.OPTIMIZER, Kind.SCALER)}
            step = next((step for step in later if zero.target == step.optimizer or zero.kind is Kind.MODULE and optimizers == {step.optimizer}), None)
            if step is not None:
                line = self.context.line_of(step.event.node)
                self.report(zero.event.node, _AFTER_THE_LOOP.format(zero_grad=zero.text, step=one_line(step.event.node), line=line))
        self._clearing_loops = [entry for entry in self._clearing_loops if entry[0].event.function is not function]

    def _module_cleared_in_a_window(self, facts: _LoopFacts) -> set[cst.CSTNode]:
        """``model.zero_grad()`` in the accumulation window of a framework that gates only the
        prepared optimizer's ``step()``/``zero_grad()``: it runs on every micro-batch."""
        reported: set[cst.CSTNode] = set()
        for step in facts.steps:
            window = self.context.accumulation_window(step.event.node)
            for zero in facts.zero_grads if window is not None else ():
                if zero.event.node in reported or self.context.accumulation_window(zero.event.node) is not window:
                    continue
                module = self._module_condition(zero)
                if module is not None:
                    message = _IN_A_WINDOW.format(zero_grad=zero.text, window=one_line(window.items[0].item))  # type: ignore[union-attr]
                    self.report(zero.event.node, message, conditions=module)
                    reported.add(zero.event.node)
        return reported

    def _module_condition(self, zero: _ZeroGrad) -> tuple[Condition, ...] | None:
        """() when the cleared object is a module, the condition under which a class of
        another project file makes it one, else None."""
        if zero.kind is Kind.MODULE:
            return ()
        call = zero.event.node
        if zero.kind is not None or type(call) is not cst.Call or type(call.func) is not cst.Attribute:  # type: ignore[attr-defined]
            return None
        condition = self.context.module_condition(call.func.value)  # type: ignore[attr-defined]
        return (condition,) if condition is not None else None

    def _clears_what_steps(self, zero: _ZeroGrad, step: _Step, gate: Branch, facts: _LoopFacts) -> bool:
        loop = _iteration_loop(step.event)
        if zero.event.function is not step.event.function or not zero.event.loops or _iteration_loop(zero.event) is not loop:
            return False
        if any(branch.is_conditional for branch in _inside(zero.event.path, loop)):
            return False  # cleared only on some iterations: presumably the stepping ones
        if not self._same_optimizer(zero, step, facts):
            return False
        if any(gate in event.path for event in facts.backwards if event.function is step.event.function):
            return False  # the step's own backward runs under its condition: nothing accumulates for it
        accumulating = [event for event in facts.backwards if self._runs_without_stepping(event, step, gate)]
        # A zero_grad between a backward and the step, with no backward after it, is TCK103's finding.
        refilled = any(zero.event.order < event.order < step.event.order for event in accumulating)
        return bool(accumulating) and (refilled or not any(event.order < zero.event.order < step.event.order for event in accumulating))

    @staticmethod
    def _runs_without_stepping(backward: Event, step: _Step, gate: Branch) -> bool:
        return (
            backward.function is step.event.function
            and _iteration_loop(step.event) in backward.loops
            and gate not in backward.path
        )

    @staticmethod
    def _same_optimizer(zero: _ZeroGrad, step: _Step, facts: _LoopFacts) -> bool:
        if zero.target is not None and zero.target == step.optimizer:
            return True
        if zero.kind is not Kind.MODULE:
            return False
        # `model.zero_grad()` clears what the optimizer steps when the loop has one optimizer,
        # and every step of it waits for the accumulation condition.
        optimizers = {other.optimizer for other in facts.steps if other.kind in (Kind.OPTIMIZER, Kind.SCALER)}
        return len(optimizers) == 1 and all(_accumulation_gate(other.event) is not None for other in facts.steps)

    def _report(self, zero: _ZeroGrad, step: _Step, gate: Branch) -> None:
        test = gate.owner.test  # type: ignore[attr-defined]
        condition = one_line(test) if gate.label == BODY else f"not ({one_line(test)})"
        message = _MESSAGE.format(
            zero_grad=zero.text,
            step=one_line(step.event.node),
            condition=condition,
            line=self.context.line_of(step.event.node),
        )
        self.report(zero.event.node, message)
