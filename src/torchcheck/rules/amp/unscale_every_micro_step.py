from __future__ import annotations

import re

import libcst as cst

from torchcheck.lint.binder import Binder
from torchcheck.lint.context import LintContext
from torchcheck.lint.flow import BODY, Branch, Event
from torchcheck.lint.guards import known_at, terms
from torchcheck.lint import references
from torchcheck.lint.nodes import method_call, self_attribute, source_text
from torchcheck.lint.rule import Invalid, Rule, Valid
from torchcheck.rules.amp._common import ScalerCall, scaler_calls

_ACTIONS = frozenset({"unscale_", "step", "update"})
# Tests that let only some iterations through to the optimizer step: `(i + 1) % accum == 0`,
# `accelerator.sync_gradients`, `should_step`. An `unscale_()` under one of these is taken
# to sit under the same gate as the step (whatever the spelling).
_STEP_GATE_NAME = re.compile(
    r"sync_grad|\b(?:should|do|need|time_to|is)_?(?:step|update|optim|sync)|accumulation_boundary|is_accumulating",
    re.IGNORECASE,
)

_MESSAGE = (
    "{unscale} runs on iterations that skip `update()`, which runs only under `if {condition}:` at line {line}; "
    "the next `unscale_()` raises RuntimeError"
)


_WINDOW_MESSAGE = (
    "`{call}()` unscales the fp16 gradients on every micro-batch of `with {window}:`, whose optimizer steps "
    "and scaler updates only on the last one; the next unscale raises RuntimeError. Clip under `if accelerator.sync_gradients:`"
)


def _precision_of(context: LintContext, framework: cst.BaseExpression) -> str | None:
    """The mixed precision the framework object was made with, when spelled as a literal
    (``Accelerator(mixed_precision="bf16")``); None when the code does not say."""
    attribute = self_attribute(framework)
    owner = context.current_class
    made = context.values_stored_in(owner, attribute) if attribute is not None and owner is not None else [references.assigned_value(context.binder, framework)] if type(framework) is cst.Name else []  # type: ignore[arg-type]
    keywords = [argument.value for value in made if type(value) is cst.Call for argument in value.args if argument.keyword is not None and argument.keyword.value == "mixed_precision"]  # type: ignore[attr-defined]
    spelled = {keyword.evaluated_value if type(keyword) is cst.SimpleString else None for keyword in keywords}  # type: ignore[attr-defined]
    return spelled.pop() if len(spelled) == 1 else None


def _key(branch: Branch) -> tuple[object, str]:
    """Two ``if`` statements with the same test are the same condition (a loop that clips
    under `if (i + 1) % n == 0:` and steps under another `if (i + 1) % n == 0:`)."""
    if isinstance(branch.owner, cst.If):
        return source_text(branch.owner.test), branch.label
    return branch.owner, branch.label


def _conditions(event: Event) -> set[tuple[object, str]]:
    return {_key(branch) for branch in event.path if branch.is_conditional}


def _under_step_gate(event: Event) -> bool:
    tests = [source_text(branch.owner.test) for branch in event.path if isinstance(branch.owner, cst.If)]
    return any("%" in test or _STEP_GATE_NAME.search(test) is not None for test in tests)


class UnscaleEveryMicroStep(Rule):
    """
    ## What it does
    Checks for `scaler.unscale_(optimizer)` on every iteration of a gradient-accumulation
    loop whose `scaler.step()` and `scaler.update()` run only under the accumulation
    condition (`if (i + 1) % accumulation_steps == 0:`), or under any other condition
    that the `unscale_()` call does not share (`if not skip_step:`). An update on both
    branches of an `if`/`else` runs on every path, as one after it would.

    ## Why is this bad?
    `GradScaler.unscale_()` may run once per optimizer between two `update()` calls: it
    divides the gradients by the scale and remembers that it did. In an accumulation loop
    the second micro-batch calls it again before any `update()`, and training stops with
    `RuntimeError: unscale_() has already been called on this optimizer since the last
    update()` (or, had it worked, the partial sums would be divided by the scale several
    times). Unscale (and clip) only on the iterations that step, under the same condition.

    The same happens when `update()` is skipped on some iterations for another reason
    (a "skip the step when the gradient norm explodes" flag computed after `unscale_()`):
    the `update()` must run on every iteration that unscaled. A helper function of the
    same file that always calls `unscale_()` on the scaler it is given counts as the call,
    and is reported where it is called. An `unscale_()` under an accumulation condition of
    its own (`if (step + 1) % n == 0:` twice, once to clip and once to step) is not reported.

    A framework's clipping unscales too: Accelerate's `accelerator.clip_grad_norm_()` (and
    `clip_grad_value_()`, `unscale_gradients()`) unscales the gradients through its scaler
    under fp16 mixed precision, while inside `with accelerator.accumulate(model):` the
    prepared optimizer steps, and the scaler updates, only on the window's last micro-batch.
    Such a call in the window is reported unless it runs under a test of the window's end
    (`if accelerator.sync_gradients:`) or the `Accelerator` is made with a precision other
    than fp16 spelled out (`mixed_precision="bf16"`).

    ## Example
    ```python
    import torch

    scaler = torch.amp.GradScaler("cuda")
    for i, (x, y) in enumerate(loader):
        with torch.autocast("cuda"):
            loss = criterion(model(x), y) / accumulation_steps
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        if (i + 1) % accumulation_steps == 0:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
    ```

    Use instead:
    ```python
    import torch

    scaler = torch.amp.GradScaler("cuda")
    for i, (x, y) in enumerate(loader):
        with torch.autocast("cuda"):
            loss = criterion(model(x), y) / accumulation_steps
        scaler.scale(loss).backward()
        if (i + 1) % accumulation_steps == 0:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
    ```

    ## Fix safety
    There is no automatic fix: the clipping that follows `unscale_()` has to move under
    the condition with it, and which statements belong to it only the author knows.

    ## References
    - [CUDA AMP examples: gradient accumulation](https://pytorch.org/docs/stable/notes/amp_examples.html#gradient-accumulation)
    - [`torch.amp.GradScaler.unscale_`](https://pytorch.org/docs/stable/amp.html#torch.amp.GradScaler.unscale_)
    - [microsoft/Swin-Transformer#311: AMP with accumulation steps fails in `unscale_()`](https://github.com/microsoft/Swin-Transformer/issues/311)
    """

    code = "TCK308"
    name = "unscale-every-micro-step"
    message = "`scaler.unscale_()` runs on every micro-batch but `scaler.update()` only when stepping; the next `unscale_()` raises"
    required_text = ("unscale_", "clip_grad_")

    VALID = (
        Valid(
            """
from accelerate import Accelerator

def train(model, optimizer, loader, steps, precision):
    accelerator = Accelerator(mixed_precision=precision, gradient_accumulation_steps=steps)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for batch in loader:
        with accelerator.accumulate(model):
            accelerator.backward(model(**batch).loss)
            if accelerator.sync_gradients:
                accelerator.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad()

def train_bf16(model, optimizer, loader, steps):
    accelerator = Accelerator(mixed_precision="bf16", gradient_accumulation_steps=steps)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for batch in loader:
        with accelerator.accumulate(model):
            accelerator.backward(model(**batch).loss)
            accelerator.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad()
"""
        ),
        Valid(
            """
import torch
def train_one_epoch(model, loader, optimizers, scaler):
    for speech, text in loader:
        scaler.scale(model(speech, text)).backward()
        for optimizer in optimizers:
            scaler.unscale_(optimizer)
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        if not torch.isfinite(grad_norm):
            for optimizer in optimizers:
                scaler.step(optimizer)  # skips the step: the gradients hold inf/nan
            scaler.update()
        else:
            for optimizer in optimizers:
                scaler.step(optimizer)
            scaler.update()
"""
        ),
        Valid(
            """
def run_step(model, batch, optimizer, scaler, max_norm):
    loss = model(batch).mean()
    (scaler.scale(loss) if scaler is not None else loss).backward()
    if scaler is not None:
        scaler.unscale_(optimizer)
    clip_grad_norm_(model.parameters(), max_norm)
    if scaler is None:
        optimizer.step()
    else:
        scaler.step(optimizer)
        scaler.update()
"""
        ),
        Valid(
            """
def optimizer_step(scaler, optimizer, closure_result, handles_unscaling):
    skip = closure_result is None
    if not handles_unscaling and not skip:
        scaler.unscale_(optimizer)
    if not skip:
        scaler.step(optimizer)
        scaler.update()
"""
        ),
        Valid(
            """
for i, (x, y) in enumerate(loader):
    scaler.scale(criterion(model(x), y) / accumulation_steps).backward()
    if (i + 1) % accumulation_steps == 0:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
"""
        ),
        Valid(
            """
for x, y in loader:
    scaler.scale(criterion(model(x), y)).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
"""
        ),
        Valid(
            """
for step, batch in enumerate(loader):
    scaler.scale(model(batch).loss / accum_iter).backward()
    if (step + 1) % accum_iter != 0:
        continue
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
"""
        ),
        Valid(
            """
for step, batch in enumerate(loader):
    scaler.scale(model(batch).loss).backward()
    if (step + 1) % args.accumulation_steps == 0:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_norm)
    if (step + 1) % args.accumulation_steps == 0:
        scaler.step(optimizer)
        scaler.update()
"""
        ),
        Valid(
            """
for x, y in loader:
    scaler.scale(criterion(model(x), y)).backward()
    scaler.unscale_(optimizer)
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    if norm.isfinite():
        scaler.step(optimizer)
    scaler.update()
"""
        ),
        Valid(
            """
def __call__(self, loss, optimizer, clip_grad=None, need_update=True):
    self._scaler.scale(loss).backward()
    if need_update:
        if clip_grad is not None:
            self._scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(self.parameters, clip_grad)
        self._scaler.step(optimizer)
        self._scaler.update()
"""
        ),
        Valid(
            """
for i, (x, y) in enumerate(loader):
    scaler.scale(criterion(model(x), y)).backward()
    scaler.unscale_(optimizer)
    if (i + 1) % log_every == 0:
        log_gradients(model)
    scaler.step(optimizer)
    scaler.update()
"""
        ),
    )
    INVALID = (
        Invalid(
            """
from accelerate import Accelerator

def train(model, optimizer, loader, steps):
    accelerator = Accelerator(mixed_precision="fp16", gradient_accumulation_steps=steps)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for batch in loader:
        with accelerator.accumulate(model):
            loss = model(**batch).loss
            accelerator.backward(loss)
            accelerator.clip_grad_norm_(model.parameters(), 1.0)  # TCK308
            optimizer.step()
            optimizer.zero_grad()
"""
        ),
        Invalid(
            """
for i, (x, y) in enumerate(loader):
    scaler.scale(criterion(model(x), y) / accumulation_steps).backward()
    scaler.unscale_(optimizer)  # TCK308
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    if (i + 1) % accumulation_steps == 0:
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
"""
        ),
        Invalid(
            """
def train_one_epoch(model, loader, optimizer, scaler, accum_iter):
    for step, batch in enumerate(loader):
        loss = model(batch).loss / accum_iter
        scaler.scale(loss).backward()
        if args.clip_grad:
            scaler.unscale_(optimizer)  # TCK308
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad)
        if (step + 1) % accum_iter == 0:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
"""
        ),
        Invalid(
            """
for idx, (img, mask) in enumerate(data_loader):
    loss = model(img, mask)
    if config.ACCUMULATION_STEPS > 1:
        scaler.scale(loss / config.ACCUMULATION_STEPS).backward()
        if config.CLIP_GRAD:
            scaler.unscale_(optimizer)  # TCK308
            torch.nn.utils.clip_grad_norm_(model.parameters(), config.CLIP_GRAD)
        if (idx + 1) % config.ACCUMULATION_STEPS == 0:
            scaler.step(optimizer)
            optimizer.zero_grad()
            scaler.update()
    else:
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        scaler.step(optimizer)
        scaler.update()
"""
        ),
        Invalid(
            """
while step < total_steps:
    scaler.scale(compute_loss(next(batches))).backward()
    skip_step = False
    scaler.unscale_(optimizer)  # TCK308
    norm = torch.nn.utils.clip_grad_norm_(params, max_norm).item()
    if norm > 5 * max_norm:
        skip_step = True
    if not skip_step:
        scaler.step(optimizer)
        scaler.update()
    optimizer.zero_grad()
    step += 1
"""
        ),
        Invalid(
            """
class Trainer:
    def clip(self):
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)

    def training_step(self, batch, step):
        self.scaler.scale(self.model(batch).loss).backward()
        self.clip()  # TCK308
        if (step + 1) % self.accumulation_steps == 0:
            self.scaler.step(self.optimizer)
            self.scaler.update()
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._facts: list[ScalerCall] = []

    def visit_Call(self, node: cst.Call) -> None:
        self._facts.extend(scaler_calls(self.context, node, _ACTIONS))
        receiver_method = method_call(node)
        framework = self.context.framework_of(receiver_method[0]) if receiver_method is not None else None
        if framework is not None and receiver_method[1] in framework.unscaling_methods:  # type: ignore[index]
            self._framework_unscale(node, receiver_method[0])  # type: ignore[index]

    def _framework_unscale(self, call: cst.Call, framework: cst.BaseExpression) -> None:
        """``accelerator.clip_grad_norm_(...)`` in ``with accelerator.accumulate(model):``: it
        unscales on every micro-batch, the prepared optimizer steps (and the scaler updates)
        only on the window's last one. Not when the framework's precision is spelled other than
        fp16, nor under a test of the window's end (``if accelerator.sync_gradients:``)."""
        window = self.context.accumulation_window(call)
        gated = any(type(node) is cst.If and _STEP_GATE_NAME.search(source_text(node.test)) for node in self.context.binder.ancestors(call))  # type: ignore[attr-defined]
        if window is None or gated or _precision_of(self.context, framework) not in (None, "fp16"):
            return
        self.report(call, _WINDOW_MESSAGE.format(call=source_text(call.func), window=source_text(window.items[0].item)))

    def leave_Module(self, node: cst.Module) -> None:
        for unscale in self._facts:
            iteration = unscale.event.iteration
            # top-level code without a loop runs once
            if unscale.action == "unscale_" and unscale.certain and iteration != (None, None):
                self._check(unscale, [fact for fact in self._facts if fact.event.iteration == iteration])

    def _check(self, unscale: ScalerCall, facts: list[ScalerCall]) -> None:
        if _under_step_gate(unscale.event):
            return  # unscaled under a step gate of its own: assume it is the step's
        later = [
            fact
            for fact in facts
            if fact.scaler == unscale.scaler
            and fact.event.order > unscale.event.order
            and not fact.event.exclusive_with(unscale.event)
        ]
        updates = [fact for fact in later if fact.action == "update"]
        if not updates or not any(fact.action == "step" for fact in later):
            return  # no update at all is TCK303's finding
        if any(_covers(update, unscale) for update in updates):
            return
        gate = _gate(updates[0], unscale, self.context.binder)
        if gate is not None and not _on_both_branches(gate, updates):
            self._report(unscale, gate)

    def _report(self, unscale: ScalerCall, gate: cst.If) -> None:
        site = unscale.site
        subject = f"`{unscale.scaler}.unscale_()`" if site is None else site.describe(self.context.line_of)
        message = _MESSAGE.format(unscale=subject, condition=source_text(gate.test), line=self.context.line_of(gate))
        self.report(unscale.event.node, message)


def _gate(update: ScalerCall, unscale: ScalerCall, binder: Binder) -> cst.If | None:
    """The innermost ``if`` around ``update`` that ``unscale`` is not under, if any: a test
    whose terms all hold where ``unscale`` runs (``if a and not skip:`` around the unscale,
    ``if not skip:`` around the update) is no gate between them."""
    around_unscale = _conditions(unscale.event)
    held = {(source_text(found.test), found.holds) for found in known_at(binder, unscale.event.node)}
    for branch in reversed(update.event.path):
        if branch.is_conditional and _key(branch) not in around_unscale and isinstance(branch.owner, cst.If):
            implied = {(source_text(term.test), term.holds) for term in terms(branch.owner.test, branch.label == BODY)}
            if not (implied and implied <= held):
                return branch.owner
    return None


def _on_both_branches(gate: cst.If, updates: list[ScalerCall]) -> bool:
    """Some update runs in the body of ``gate`` and some in its ``else``: together they cover it."""
    labels = {branch.label for update in updates for branch in update.event.path if branch.owner is gate}
    return len(labels) > 1


def _covers(update: ScalerCall, unscale: ScalerCall) -> bool:
    """``update`` (a later call) runs whenever ``unscale`` runs."""
    same_loop = update.event.loops == unscale.event.loops[: len(update.event.loops)]
    return same_loop and _conditions(update.event) <= _conditions(unscale.event)
