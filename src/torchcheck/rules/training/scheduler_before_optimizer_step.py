from __future__ import annotations

import re
from dataclasses import dataclass, replace

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.exports import call_shape
from torchcheck.lint.flow import Branch, Event, encloses
from torchcheck.lint.handed import handed_to_imported_helper
from torchcheck.lint.kinds import Kind
from torchcheck.lint.nodes import dotted_name, source_text
from torchcheck.lint.project import MAY, NONE, PLACE, Condition
from torchcheck.lint.rule import Invalid, Rule, Valid
from torchcheck.lint.summaries import ANONYMOUS, Certainty, FunctionSummary, Site, spelled

_THROUGH_HELPER = (
    "`scheduler.step()` runs before {site}; the first learning-rate value is skipped"
)
_EVERY_MICRO_BATCH = (
    "`scheduler.step()` runs on every micro-batch, the optimizer steps only under `if {test}:` (line {line}): "
    "the schedule advances several times per update and starts before the first one; step it with the optimizer"
)
# A test that lets only the last micro-batch of an accumulation window through to the step.
_ACCUMULATION_TEST = re.compile(r"%|accum|sync_grad|micro|backward_passes", re.IGNORECASE)


def _accumulation_gate(scheduler: Event, steps: list[_OptimizerStep]) -> cst.If | None:
    """The ``if`` of an accumulation window (``if (i + 1) % accum == 0:``) that every one of
    ``steps`` runs under and ``scheduler`` does not: on the other iterations of their common
    innermost loop it steps alone (after that loop, once per epoch, it does not)."""
    gates = []
    for step in steps:
        if not step.event.loops or step.event.loops[-1] not in scheduler.loops[-1:]:
            return None
        if any(_is_accumulation_test(branch) for branch in scheduler.path if branch not in step.event.path):
            return None  # `if scheduler is not None and itr % accumulation == 0:`: its own window test
        gate = next((branch.owner for branch in step.event.path if branch not in scheduler.path and _is_accumulation_test(branch)), None)
        if gate is None:
            return None
        gates.append(gate)
    return gates[0] if gates else None


def _is_accumulation_test(branch: Branch) -> bool:
    return branch.is_conditional and isinstance(branch.owner, cst.If) and _ACCUMULATION_TEST.search(source_text(branch.owner.test)) is not None


_AT_THE_START = (
    "`scheduler.step()` runs in `{function}()`, which the framework calls when an epoch or a batch "
    "starts, before its optimizer step; the first learning-rate value is skipped"
)


@dataclass(frozen=True)
class _OptimizerStep:
    event: Event
    site: Site | None = None  # a step done by a helper: where
    # a helper imported from another file of the project that may step: the condition under
    # which it does (decided by the project index)
    condition: Condition | None = None


class SchedulerBeforeOptimizerStep(Rule):
    """
    ## What it does
    Checks for `scheduler.step()` called before `optimizer.step()` in the same iteration of
    a loop (or the same step function), with no optimizer step earlier in that iteration on
    the same path (a step in another branch of an `if`, such as the warm-up epochs', does not
    count). A scheduler whose `last_epoch` the code sets itself (`scheduler.last_epoch =
    start_epoch - 1`, then a step at the start of each epoch) is positioned on purpose and
    is not reported. In a gradient-accumulation loop whose optimizer steps only at the end of
    a window (`if (i + 1) % accumulation_steps == 0:`, a test naming accumulation or
    `sync_gradients`) a scheduler stepped outside that test runs on every micro-batch: it is
    reported too, as it steps before the first update and advances several times per update.
    A scheduler under an accumulation test of its own (`if scheduler is not None and i % n == 0:`)
    steps with the optimizer and is not.

    A framework's loop counts too: a scheduler stepped in a hook the framework calls when an
    epoch or a batch starts (a Lightning module's or callback's `on_train_epoch_start`,
    `on_train_batch_start` or `on_train_start`; an Ignite handler of `Events.EPOCH_STARTED`,
    `Events.ITERATION_STARTED` or `Events.STARTED`) runs before that pass's optimizer step.

    ## Why is this bad?
    Since PyTorch 1.1 a learning-rate scheduler must be stepped *after* the optimizer.
    Stepping it first moves to the second learning-rate value before the first update, so
    the first value of the schedule is skipped (and the whole schedule shifts by one);
    PyTorch warns about it at run time. Call `scheduler.step()` after `optimizer.step()`.

    An optimizer step done by a helper function called later in the iteration
    (`train_one_epoch(model, optimizer, loader)`) counts, whether the helper is defined in
    the same file or imported from another file of the project; so does a scheduler step
    done by a helper of the file (`self.pre_epoch()`, which always steps the scheduler and
    no optimizer) called before the optimizer's step, reported where the helper steps it.
    Calls with arguments (`ReduceLROnPlateau.step(val_loss)`, the deprecated `scheduler.step(epoch)`) and
    scheduler steps that run only on some iterations (under an `if` the optimizer step is
    not in) are not reported, nor is a `step()` whose result is used
    (`new_lr = scheduler.step()`): PyTorch's schedulers return nothing, so that is a
    project's own schedule, which may set the value for the coming step by design.

    ## Example
    ```python
    for epoch in range(epochs):
        scheduler.step()
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
    ```

    Use instead:
    ```python
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        scheduler.step()
    ```

    ## Fix safety
    There is no automatic fix: moving the call changes which statements run between the two
    steps.

    ## References
    - [How to adjust the learning rate](https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate)
    - [`torch.optim.lr_scheduler.LRScheduler`](https://pytorch.org/docs/stable/generated/torch.optim.lr_scheduler.LRScheduler.html)
    """

    code = "TCK104"
    name = "scheduler-before-optimizer-step"
    message = "`scheduler.step()` runs before `optimizer.step()`; the first learning-rate value is skipped"
    required_text = (".step()",)

    VALID = (
        Valid(
            """
def train(model, loader, optimizer, scheduler, accumulation):
    for itr, (x, y) in enumerate(loader):
        (criterion(model(x), y) / accumulation).backward()
        if itr % accumulation == 0:
            optimizer.step()
            optimizer.zero_grad()
        if scheduler is not None and itr % accumulation == 0:
            scheduler.step()
"""
        ),
        Valid(
            """
for i, (x, y) in enumerate(loader):
    (criterion(model(x), y) / accumulation_steps).backward()
    if (i + 1) % accumulation_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
        scheduler.step()
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    if torch.isfinite(loss):
        optimizer.step()
    optimizer.zero_grad()
    scheduler.step()
"""
        ),
        Valid(
            """
import torch
class Experiment:
    def __init__(self, model):
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=10)
    def post_epoch(self):
        self.scheduler.step()
    def train(self, model, loader):
        for x, y in loader:
            self.optimizer.zero_grad()
            model(x).sum().backward()
            self.optimizer.step()
        self.post_epoch()
"""
        ),
        Valid(
            """
for epoch in range(epochs):
    for step, (x, y) in enumerate(loader):
        new_lr = lr_scheduler.step()
        new_wd = wd_scheduler.step()
        criterion(model(x), y).backward()
        optimizer.step()
        optimizer.zero_grad()
"""
        ),
        Valid(
            """
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
    scheduler.step()
"""
        ),
        Valid(
            """
for x, y in loader:
    optimizer.zero_grad()
    criterion(model(x), y).backward()
    optimizer.step()
    scheduler.step()
"""
        ),
        Valid(
            """
for epoch in range(epochs):
    val_loss = evaluate(model)
    scheduler.step(val_loss)
    for x, y in loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
"""
        ),
        Valid(
            """
for i, (x, y) in enumerate(loader):
    if i > 0 and i % steps_per_epoch == 0:
        scheduler.step()
    optimizer.zero_grad()
    criterion(model(x), y).backward()
    optimizer.step()
"""
        ),
        Valid(
            """
for real, noise in loader:
    d_loss.backward()
    d_optimizer.step()
    d_scheduler.step()
    g_loss.backward()
    g_optimizer.step()
    g_scheduler.step()
"""
        ),
        Valid(
            """
for epoch in range(epochs):
    train_one_epoch(model, optimizer, loader)
    scheduler.step()
"""
        ),
        Valid(
            """
def train_one_epoch(model, optimizer, loader):
    for x, y in loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()

def evaluate(model, loader):
    return sum(criterion(model(x), y).item() for x, y in loader)

for epoch in range(epochs):
    train_one_epoch(model, optimizer, loader)
    scheduler.step()
    evaluate(model, loader)
"""
        ),
        Valid(
            """
def train(model, loader, optimizer, scheduler, epochs, accumulated):
    for epoch in range(epochs):
        for i, (images, targets) in enumerate(loader):
            loss = model(images, targets)
            loss.backward()
            if (i + 1) % accumulated == 0 or i == len(loader) - 1:
                optimizer.step()
                optimizer.zero_grad()
        scheduler.step()
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
        optimizer.step()
        optimizer.zero_grad()
    scheduler.step()  # TCK104
"""
        ),
        Invalid(
            """
import torch
class Experiment:
    def __init__(self, model):
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=10)
    def pre_epoch(self):
        self.scheduler.step()  # TCK104
    def post_epoch(self):
        print(self.scheduler.get_last_lr())
    def train(self, model, loader):
        self.pre_epoch()
        for x, y in loader:
            self.optimizer.zero_grad()
            model(x).sum().backward()
            self.optimizer.step()
        self.post_epoch()
"""
        ),
        Invalid(
            """
from ignite.engine import Engine, Events

def attach_schedule(trainer: Engine, scheduler):
    @trainer.on(Events.EPOCH_STARTED)
    def adjust_learning_rate(engine):
        scheduler.step()  # TCK104

    def warm(engine):
        scheduler.step()  # TCK104

    trainer.add_event_handler(Events.ITERATION_STARTED(every=10), warm)

    @trainer.on(Events.EPOCH_COMPLETED)
    def after_the_epoch(engine):
        scheduler.step()
"""
        ),
        Invalid(
            """
import lightning.pytorch as pl

class Schedule(pl.Callback):
    def on_train_epoch_start(self, trainer, module):
        module.scheduler.step()  # TCK104

    def on_train_epoch_end(self, trainer, module):
        module.scheduler.step()
"""
        ),
        Invalid(
            """
class Runner:
    def __init__(self, model, optimizer_scheduler):
        self.model = model
        self.optimizer_scheduler = optimizer_scheduler  # holds .optimizer and .scheduler

    def train_step(self, batch):
        loss = self.model(batch).loss
        loss.backward()
        self.optimizer_scheduler.scheduler.step()  # TCK104
        self.optimizer_scheduler.optimizer.step()
        self.model.zero_grad()
"""
        ),
        Invalid(
            """
for epoch in range(epochs):
    scheduler.step()  # TCK104
    for x, y in loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
"""
        ),
        Invalid(
            """
import torch
opt = torch.optim.SGD(model.parameters(), lr=0.1)
warmup = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1)
for x, y in loader:
    warmup.step()  # TCK104
    opt.zero_grad()
    criterion(model(x), y).backward()
    opt.step()
"""
        ),
        Invalid(
            """
def train_one_epoch(model, optimizer, scheduler, loader):
    scheduler.step()  # TCK104
    for x, y in loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
"""
        ),
        Invalid(
            """
class Trainer:
    def training_step(self, batch):
        self.lr_scheduler.step()  # TCK104
        loss = self.model(batch).mean()
        self.scaler.scale(loss).backward()
        self.scaler.step(self.optimizer)
        self.scaler.update()
"""
        ),
        Invalid(
            """
def train(model, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()

for epoch in range(epochs):
    scheduler.step()  # TCK104
    train(model, loader, optimizer)
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._schedulers: list[Event] = []
        self._optimizers: list[_OptimizerStep] = []
        # schedulers whose `last_epoch` the code sets itself, as (name, the class or function it lives in)
        self._positioned: set[tuple[str | None, cst.CSTNode | None]] = set()
        self._stepped: dict[cst.CSTNode, tuple[str | None, cst.CSTNode | None]] = {}
        self._reported_at: dict[cst.CSTNode, cst.CSTNode] = {}  # a helper's call -> the scheduler step it makes
        self._reported: set[cst.CSTNode] = set()

    def _home(self, receiver: cst.BaseExpression) -> tuple[str | None, cst.CSTNode | None]:
        name = dotted_name(receiver)
        on_self = name is not None and name.startswith("self.")
        return name, self.context.current_class if on_self else self.context.flow.function

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Attribute) and target.target.attr.value == "last_epoch":
                self._positioned.add(self._home(target.target.value))

    def visit_Call(self, node: cst.Call) -> None:
        summary = self.context.call_summary(node)
        if summary is not None:
            self._helper_step(node, summary)
            return
        if self._imported_helper_step(node):
            return
        if not isinstance(node.func, cst.Attribute) or node.func.attr.value != "step":
            return
        kind = self.context.kind_of(node.func.value)
        if kind is Kind.SCHEDULER:
            if not node.args and self._result_discarded(node):
                self._schedulers.append(self.context.flow.event(node))
                self._stepped[node] = self._home(node.func.value)
        elif kind is Kind.OPTIMIZER or (
            kind is Kind.SCALER and node.args and self.context.kind_of(node.args[0].value) is Kind.OPTIMIZER
        ):
            self._optimizers.append(_OptimizerStep(self.context.flow.event(node)))

    def _result_discarded(self, call: cst.Call) -> bool:
        """PyTorch's ``LRScheduler.step()`` returns None: a scheduler whose ``step()`` result
        is used (``lr = scheduler.step()``) is a project's own schedule, which may well set
        the value for the coming step by design."""
        return isinstance(self.context.statement_holding(call), cst.Expr)

    def _helper_step(self, call: cst.Call, summary: FunctionSummary) -> None:
        """A helper that (maybe) steps an optimizer or a GradScaler the caller passes it; or
        one that surely steps a scheduler and no optimizer (``self.pre_epoch()``): that step
        runs where the helper is called, and is reported where it is written."""
        stepped = [(effect, self.context.kind_of(spelled(effect.target))) for effect in summary.effects if effect.action == "step" and effect.target != ANONYMOUS]
        for effect, kind in stepped:
            if kind in (Kind.OPTIMIZER, Kind.SCALER):
                self._optimizers.append(_OptimizerStep(self.context.flow.event(call), effect.site))
                return
        for effect, kind in stepped:
            node = effect.site.node
            if kind is Kind.SCHEDULER and effect.certainty is Certainty.MUST and isinstance(node, cst.Call) and not node.args:
                self._schedulers.append(self.context.flow.event(call))
                self._reported_at[call] = node
                self._stepped[call] = self._home(node.func.value)  # type: ignore[attr-defined]
                return

    def _imported_helper_step(self, call: cst.Call) -> bool:
        """A helper from another file of the project, handed an optimizer (or a GradScaler):
        whether it steps it is a question for the project index."""
        handed = handed_to_imported_helper(self.context, call, (Kind.OPTIMIZER, Kind.SCALER))
        if handed is None:
            return False
        condition = Condition(handed[0], f"effect:step:{handed[1]}", MAY, call_shape(call))
        self._optimizers.append(_OptimizerStep(self.context.flow.event(call), condition=condition))
        return True

    def leave_Module(self, node: cst.Module) -> None:
        for scheduler in self._schedulers:
            if self._stepped[scheduler.node] in self._positioned:
                continue  # `scheduler.last_epoch = start - 1` before stepping first: positioned on purpose
            steps = [step for step in self._optimizers if self._same_pass(scheduler, step.event)]
            # a step in another branch of an `if` (the warm-up epochs') does not run in this pass
            earlier = [step for step in steps if step.event.order < scheduler.order and not step.event.exclusive_with(scheduler)]
            if any(step.condition is None for step in earlier):
                gate = _accumulation_gate(scheduler, [step for step in earlier if step.condition is None])
                if gate is not None:  # stepped only at the end of an accumulation window, the scheduler on every micro-batch
                    self.report(scheduler.node, _EVERY_MICRO_BATCH.format(test=source_text(gate.test), line=self.context.line_of(gate)))
                continue  # the optimizer already stepped in this iteration
            # a helper of another file called earlier must not step the optimizer either
            unless = tuple(replace(step.condition, value=NONE) for step in earlier if step.condition is not None)
            later = [
                step
                for step in steps
                if step.event.order > scheduler.order
                and not step.event.exclusive_with(scheduler)
                and encloses(scheduler.path, step.event.path)
            ]
            if later:
                self._report(scheduler, later[0], unless)
            elif not scheduler.loops and scheduler.function is not None and self.context.runs_before_the_step(scheduler.function):
                self.report(scheduler.node, _AT_THE_START.format(function=scheduler.function.name.value), conditions=unless)

    def _report(self, scheduler: Event, step: _OptimizerStep, unless: tuple[Condition, ...]) -> None:
        node = self._reported_at.get(scheduler.node, scheduler.node)
        if node in self._reported:
            return  # a helper's step reached from several calls
        self._reported.add(node)
        if step.condition is not None:
            self.report(node, _THROUGH_HELPER.format(site=PLACE), conditions=(step.condition, *unless))
        elif step.site is None and node is scheduler.node:
            self.report(node, conditions=unless)
        else:
            site = step.site.describe(self.context.line_of) if step.site is not None else f"`{source_text(step.event.node).strip()}` at line {self.context.line_of(step.event.node)}"
            self.report(node, _THROUGH_HELPER.format(site=site), conditions=unless)

    @staticmethod
    def _same_pass(scheduler: Event, step: Event) -> bool:
        """Both run in one iteration, or the scheduler runs once per call of a function
        whose loops step the optimizer (a ``train_one_epoch`` that starts with it)."""
        if scheduler.loops:
            return step.iteration == scheduler.iteration
        return step.function is scheduler.function
