from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from torchcheck.lint import guards
from torchcheck.lint.context import LintContext, Loop
from torchcheck.lint.flow import BODY, Event
from torchcheck.lint.handed import handed_to_imported_helper
from torchcheck.lint.idioms import Effect
from torchcheck.lint.kinds import Kind, conventional_kind
from torchcheck.lint.nodes import dotted_name, source_text
from torchcheck.lint.project import NONE, Condition, Symbol
from torchcheck.lint.rule import Invalid, Rule, Valid
from torchcheck.lint.summaries import Certainty, FunctionSummary

_HELPER_MESSAGE = (
    "`{helper}()` backpropagates and steps but never calls `zero_grad()`, and neither does this loop; "
    "gradients add up across steps"
)
_OTHER_OPTIMIZER_MESSAGE = (
    "`{optimizer}.step()` runs in a loop that clears only other optimizers' gradients (`{cleared}.zero_grad()`, "
    "line {line}); the gradients `{optimizer}` steps add up across steps"
)
_OTHER_BRANCH_MESSAGE = (
    "`step()` runs on a path that never calls `zero_grad()`: only another branch clears gradients (line {line}), "
    "so on this one they add up across steps"
)


@dataclass(frozen=True)
class _Step:
    call: cst.Call
    loops: tuple[Loop, ...]
    event: Event
    helper: str | None = None  # a helper of this file that backpropagates and steps, never clearing
    optimizer: str | None = None  # the optimizer stepped, as the code spells it
    cleared_in: cst.CSTNode | None = None  # a helper's step (``call``) whose other branch clears here


@dataclass
class _LoopFacts:
    """What one outermost loop (with the loops nested in it) does."""

    steps: list[_Step] = field(default_factory=list)
    zeroed: list[Event] = field(default_factory=list)  # where gradients are cleared
    clears_one: dict[int, str] = field(default_factory=dict)  # event id -> the one optimizer it clears
    # helpers of other files of the project handed an optimizer or a module: whether they
    # clear gradients is a question for the project index
    imported: list[tuple[Symbol, tuple[Loop, ...]]] = field(default_factory=list)


class MissingZeroGrad(Rule):
    """
    ## What it does
    Checks for training loops that call `.backward()` and `optimizer.step()` but never
    clear gradients with `optimizer.zero_grad()` or `model.zero_grad()` (in the loop or in a
    loop around it).

    Gradients cleared by a helper function (a `reset_grad(optimizer)` that calls
    `zero_grad()`, or sets `p.grad = None` for the model's parameters) count, whether it is
    defined in the same file or imported from another file of the project, and an optimizer
    built afresh in each iteration is not reported. One path is enough: a `step()` in one
    branch of an `if` (the plain path next to a mixed-precision one) is reported when only
    another branch clears gradients, and the message names that branch's clear; so is a
    `step()` after an `if` on a setting the loop never changes (`if args.moe: ... else:
    model.zero_grad()`), unless the step itself runs only where the clearing's test holds
    (`if mode == "train":` around both); the same
    holds inside a method or function of the file that the loop calls (`self.train_step(...)`
    whose fp32 branch steps the optimizer without the clear its fp16 branch makes), reported
    at that step (a scheduler's `step()` is no update). A call of a
    method or function of the file that always backpropagates and steps but never clears
    (`self.train_step(batch)`) is reported at the call when the loop does not clear either
    (a `zero_grad()` once before the loop does not count). Clearing is per optimizer: in a
    GAN loop that calls only `optimizer_e.zero_grad()`, `optimizer_d.step()` is reported (a
    module's `zero_grad()`, or one of a value not known to be an optimizer, counts for every
    step).

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
def accumulate(model, optimizer, batches, mode, accumulation_count):
    for batch in batches:
        if mode != "train":
            loss = model(batch).sum().detach()
        else:
            optimizer.zero_grad()
            loss = model(batch).sum()
        if mode == "train":
            loss.backward()
            optimizer.step()
        if accumulation_count == 1:
            model.zero_grad()
        model(batch).sum().backward()
        if accumulation_count == 1:
            optimizer.step()
"""
        ),
        Valid(
            """
def train(model, loader, optimizer, args):
    for i, batch in enumerate(loader):
        if i % args.accumulation_steps == 0:
            optimizer.zero_grad()
        model(batch).sum().backward()
        if (i + 1) % args.accumulation_steps == 0:
            optimizer.step()


def train_amp(model, loader, optimizer, scaler, args):
    for batch in loader:
        if args.amp:
            optimizer.zero_grad()
            scaler.scale(model(batch).sum()).backward()
        else:
            optimizer.zero_grad()
            model(batch).sum().backward()
        optimizer.step()
"""
        ),
        Valid(
            """
class Trainer:
    def train_step(self, batch, model, optimizer, lr_scheduler, accumulate):
        model(batch).backward()
        if accumulate:
            return
        optimizer.step()
        optimizer.zero_grad()
        lr_scheduler.step()  # a scheduler's step on the path that does not update: nothing to clear

    def train(self, loader, model, optimizer, lr_scheduler):
        for index, batch in enumerate(loader):
            self.train_step(batch, model, optimizer, lr_scheduler, index % 4 != 3)
"""
        ),
        Valid(
            """
import torch

def train_step(model, optimizer, batches, accumulation):
    optimizer.zero_grad()
    count = 0
    while True:
        complete = False
        x, y = next(batches)
        torch.nn.functional.mse_loss(model(x), y).backward()
        count += 1
        if count == accumulation:
            optimizer.step()
            complete = True
        if complete:
            break

def fit(model, optimizer, batches):
    for _ in range(100):
        train_step(model, optimizer, batches, 4)
"""
        ),
        Valid(
            """
import torch.nn.functional as F

def train_gan(generator, discriminator, optimizer_g, optimizer_d, loader, noise):
    for x in loader:
        optimizer_d.zero_grad()
        loss_d = F.softplus(discriminator(generator(noise()).detach())).mean() + F.softplus(-discriminator(x)).mean()
        loss_d.backward()
        optimizer_d.step()
        generator.zero_grad()
        F.softplus(-discriminator(generator(noise()))).mean().backward()
        optimizer_g.step()
"""
        ),
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
def clear_gradients(net):
    for p in net.parameters():
        p.grad = None

for x, y in loader:
    clear_gradients(model)
    criterion(model(x), y).backward()
    optimizer.step()
"""
        ),
        Valid(
            """
import torch
for image, label in samples:
    delta = torch.zeros_like(image, requires_grad=True)
    attack = torch.optim.SGD([delta], lr=0.01)
    loss = -criterion(model(image + delta), label)
    loss.backward()
    attack.step()
"""
        ),
    )
    INVALID = (
        Invalid(
            """
def train(model, data, optimizer, loss_func, args):
    for i in range(0, len(data), args.batch_size):
        batch = data[i:i + args.batch_size]
        if args.mixture_of_experts:
            loss = model.expert_loss(batch)
        else:
            model.zero_grad()
            loss = loss_func(model(batch), batch)
        loss.backward()
        optimizer.step()  # TCK102
"""
        ),
        Invalid(
            """
class Trainer:
    def train_step(self, batch, model, optimizer, lr_scheduler):
        loss = model(batch)
        loss.backward()
        if self.fp16:
            optimizer.step()
            optimizer.zero_grad()
        else:
            optimizer.step()  # TCK102
        lr_scheduler.step()

    def train(self, loader, model, optimizer, lr_scheduler):
        for batch in loader:
            self.train_step(batch, model, optimizer, lr_scheduler)
"""
        ),
        Invalid(
            """
import torch.nn.functional as F

def train_gan(encoder, generator, discriminator, optimizer_e, optimizer_d, loader):
    for x in loader:
        fake = generator(encoder(x)).detach()
        loss_d = F.softplus(discriminator(fake)).mean() + F.softplus(-discriminator(x)).mean()
        loss_d.backward()
        optimizer_d.step()  # TCK102
        optimizer_e.zero_grad()
        loss_e = F.softplus(-discriminator(generator(encoder(x)))).mean()
        loss_e.backward()
        optimizer_e.step()
"""
        ),
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
        Invalid(
            """
def log_progress(step):
    print(step)

for step, (x, y) in enumerate(loader):
    log_progress(step)
    criterion(model(x), y).backward()
    optimizer.step()  # TCK102
"""
        ),
        Invalid(
            """
import torch
for epoch in range(epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        criterion(model(x), y).backward()
        optimizer.step()  # TCK102
"""
        ),
        Invalid(
            """
import torch

def train(model, optimizer, batches, accumulation):
    optimizer.zero_grad()
    while True:
        done = False
        for count, (x, y) in enumerate(batches, 1):
            torch.nn.functional.mse_loss(model(x), y).backward()
            if count % accumulation == 0:
                optimizer.step()  # TCK102
        if done:
            break
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._cleared_outside_loops: list[cst.Call] = []
        self._reported: set[cst.CSTNode] = set()

    def _facts(self) -> _LoopFacts:
        return self.context.flow.loop_facts(self, _LoopFacts)

    def visit_Call(self, node: cst.Call) -> None:
        loops = self.context.loops
        if not loops:
            if _clears_gradients(node, node.func.attr.value if isinstance(node.func, cst.Attribute) else None):
                self._cleared_outside_loops.append(node)
            return
        handed = handed_to_imported_helper(self.context, node, (Kind.OPTIMIZER, Kind.MODULE))
        if handed is not None:
            self._facts().imported.append((handed[0], loops))  # a helper of another file: the project decides
        summary = self.context.call_summary(node)
        method = node.func.attr.value if isinstance(node.func, cst.Attribute) and node.func.attr.value != "forward" else None
        clear = summary.effect(Effect.ZERO_GRAD) if summary is not None and summary.does(Effect.BACKWARD) else None
        uncleared = self._uncleared_steps(summary, clear.site.node) if clear is not None and clear.site is not None else []  # type: ignore[arg-type]
        if uncleared:  # the helper steps an optimizer in one branch of a test, and clears in the other
            self._facts().steps.extend(_Step(step, loops, self.context.flow.event(node), cleared_in=clear.site.node) for step in uncleared)  # type: ignore[union-attr]
        elif summary is not None and summary.does(Effect.ZERO_GRAD) or _clears_gradients(node, method):
            self._zeroed(node)
            receiver = node.func.value if method == "zero_grad" else None  # type: ignore[attr-defined]
            if receiver is not None and self._names_one_optimizer(receiver):
                self._facts().clears_one[id(self._facts().zeroed[-1])] = dotted_name(receiver)  # type: ignore[assignment]
        elif method is not None and summary is not None and self._steps_uncleared(summary):
            self._facts().steps.append(_Step(node, loops, self.context.flow.event(node), helper=method))
        elif method == "step":
            optimizer = self._stepped_optimizer(node)
            if optimizer is not None and not self._built_in_this_iteration(optimizer, loops):
                self._facts().steps.append(_Step(node, loops, self.context.flow.event(node), optimizer=dotted_name(optimizer)))

    def _uncleared_steps(self, summary: FunctionSummary, clear: cst.CSTNode | None) -> list[cst.Call]:
        """The helper's ``optimizer.step()`` calls on paths that never clear gradients (not
        a scheduler's step), in the other branch of the test its ``clear`` runs under (not
        under a second test of the same setting: those paths never run)."""
        sites = [effect.site.node for effect in summary.effects if effect.action == Effect.STEP_UNCLEARED and effect.site is not None]
        steps = [site for site in sites if type(site) is cst.Call and type(site.func) is cst.Attribute and clear is not None]
        binder = self.context.binder
        return [step for step in steps if self._stepped_kind(step.func.value) is Kind.OPTIMIZER and guards.never_together(binder, clear, step)]  # type: ignore[arg-type, attr-defined]

    def _stepped_kind(self, receiver: cst.BaseExpression) -> Kind | None:
        """What a helper's step is called on, where the helper stands; failing that, what its
        name says, as for a step the loop itself makes (``lr_scheduler.step()`` is no optimizer's)."""
        shown = self.context.kind_elsewhere(receiver).kind
        name = receiver.attr.value if type(receiver) is cst.Attribute else getattr(receiver, "value", "")  # type: ignore[attr-defined]
        return shown or (conventional_kind(name) if isinstance(name, str) else None)

    @staticmethod
    def _steps_uncleared(summary: FunctionSummary) -> bool:
        """``self.train_step(batch)`` whose every run backpropagates and steps (and, asked
        after the summary is known not to clear, never clears)."""
        return summary.does(Effect.BACKWARD, certainty=Certainty.MUST) and summary.does(Effect.STEP, certainty=Certainty.MUST)

    def visit_Assign(self, node: cst.Assign) -> None:
        if self.context.loops and any(_is_grad(target.target) for target in node.targets):
            self._zeroed(node)

    def _names_one_optimizer(self, receiver: cst.BaseExpression) -> bool:
        """An optimizer by a name that holds one optimizer (not a loop over several)."""
        name = dotted_name(receiver)
        binding = self.context.flow.last_binding(name) if name is not None and "." not in name else None
        return bool(name) and self.context.kind_of(receiver) is Kind.OPTIMIZER and not isinstance(getattr(binding, "node", None), cst.For)

    def _zeroed(self, node: cst.CSTNode) -> None:
        self._facts().zeroed.append(self.context.flow.event(node))

    def _stepped_optimizer(self, call: cst.Call) -> cst.BaseExpression | None:
        """The optimizer that ``opt.step()`` / ``scaler.step(opt)`` steps, or None."""
        receiver = call.func.value  # type: ignore[attr-defined]
        kind = self.context.kind_of(receiver)
        if kind is Kind.OPTIMIZER:
            return receiver if not call.args else None  # step(closure) is LBFGS-style: the closure clears gradients
        if kind is Kind.SCALER and call.args and self.context.kind_of(call.args[0].value) is Kind.OPTIMIZER:
            return call.args[0].value
        return None

    def _built_in_this_iteration(self, optimizer: cst.BaseExpression, loops: tuple[Loop, ...]) -> bool:
        """An optimizer constructed inside the loop steps fresh parameters once: nothing to clear."""
        name = dotted_name(optimizer)
        binding = self.context.flow.last_binding(name) if name is not None and "." not in name else None
        return binding is not None and isinstance(binding.value, cst.Call) and loops[-1] in binding.loops

    def leave_loop(self, loop: Loop) -> None:
        """Decide once the outermost loop is complete: an outer loop may clear gradients further down."""
        facts = self._facts()
        for step in facts.steps:
            # a clearing counts if it runs in an iteration of a loop around the step, on a path
            # the step may take: one in the other branch of an `if` leaves this step's path uncleared
            around = [zero for zero in facts.zeroed if set(zero.loops) & set(step.loops)]
            others = [zero for zero in around if step.optimizer and facts.clears_one.get(id(zero), step.optimizer) != step.optimizer]
            around = [zero for zero in around if zero not in others]  # `optimizer_E.zero_grad()` leaves D's gradients
            trains = step.helper is not None or self.context.is_training_loop(step.loops[-1])
            if self._one_step_per_call(step):
                continue
            if trains and (all(zero.exclusive_with(step.event) for zero in around) or self._skipped_by_a_setting(step, around)):
                message = None
                if step.helper is not None:
                    message = _HELPER_MESSAGE.format(helper=step.helper)
                elif step.cleared_in is not None:
                    message = _OTHER_BRANCH_MESSAGE.format(line=self.context.line_of(step.cleared_in))
                elif others and not around:
                    cleared, line = facts.clears_one[id(others[0])], self.context.line_of(others[0].node)
                    message = _OTHER_OPTIMIZER_MESSAGE.format(optimizer=step.optimizer, cleared=cleared, line=line)
                elif around:
                    message = _OTHER_BRANCH_MESSAGE.format(line=self.context.line_of(around[0].node))
                # a helper of another file called in these loops must not clear gradients
                unless = tuple(
                    Condition(helper, "does:zero_grad", NONE) for helper, loops in facts.imported if set(loops) & set(step.loops)
                )
                if step.call not in self._reported:  # a helper's step, called from several loops, once
                    self._reported.add(step.call)
                    self.report(step.call, message, conditions=tuple(dict.fromkeys(unless)))


    def _skipped_by_a_setting(self, step: _Step, zeros: list[Event]) -> bool:
        """Every clearing sits in one branch of an ``if`` on a setting the loop never changes
        (``if args.moe: ... else: model.zero_grad()``), whose other branch the step also takes:
        with that setting, no iteration clears."""
        loop, binder = step.loops[-1], self.context.binder
        # not when the step runs only where the clearing's test holds too (`if accumulate == 1:` around both)
        needs = {(source_text(held.test), held.holds) for held in guards.known_at(binder, step.call)}
        candidates = [
            {(id(branch.owner), branch.label) for branch in zero.path if isinstance(branch.owner, cst.If) and branch not in step.event.path
             and loop in binder.ancestors(branch.owner) and guards.invariant_in(binder, branch.owner.test, loop)
             and not needs & {(source_text(held.test), held.holds) for held in guards.terms(branch.owner.test, branch.label == BODY)}}
            for zero in zeros
        ]
        return bool(zeros) and bool(set.intersection(*candidates))

    def _one_step_per_call(self, step: _Step) -> bool:
        """The loop is left after its step (an accumulation loop that breaks once it steps),
        and the function clears gradients before the loop: each call steps once, cleared."""
        binder, loop = self.context.binder, step.loops[-1]
        cleared = any(binder.enclosing(clear, cst.FunctionDef) is step.event.function and binder.precedes(clear, loop) for clear in self._cleared_outside_loops)
        return cleared and self.context.flow.leaves_loop_after(step.event)


def _clears_gradients(call: cst.Call, method: str | None) -> bool:
    """``optimizer.zero_grad()``, ``model.zero_grad(set_to_none=True)``, ``p.grad.zero_()``."""
    return method is not None and ("zero_grad" in method or method == "zero_" and _is_grad(call.func.value))  # type: ignore[attr-defined]


def _is_grad(expression: cst.BaseExpression) -> bool:
    return isinstance(expression, cst.Attribute) and expression.attr.value == "grad"
