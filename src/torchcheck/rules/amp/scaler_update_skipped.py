from __future__ import annotations

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.flow import Event
from torchcheck.lint.rule import Invalid, Rule, Valid
from torchcheck.rules.amp._common import ScalerCall, scaler_calls

_ACTIONS = frozenset({"unscale_", "step", "update"})
# The exits that may jump over an update, with their keyword (a `raise` ends the training).
_JUMPS = {cst.Continue: "continue", cst.Break: "break", cst.Return: "return"}
# What the next iteration's call raises once the scaler is left in each state.
_CONSEQUENCE = {
    "unscale_": "the next `unscale_()` raises RuntimeError",
    "step": "the next `scaler.step()` raises RuntimeError",
}
_MESSAGE = "`{jump}` after {done} skips `{scaler}.update()` at line {update_line}; {consequence}"


def _same_pass(first: Event, second: Event) -> bool:
    """Both run in one pass of the loops around them: one's loops enclose the other's."""
    shared = min(len(first.loops), len(second.loops))
    return first.function is second.function and first.loops[:shared] == second.loops[:shared]


def _in_jumped_loop(fact: ScalerCall, jump: Event) -> bool:
    """For ``continue``/``break``: the fact is inside the loop the jump leaves; for
    ``return``: it runs in the same pass of the function."""
    if not _same_pass(fact.event, jump):
        return False
    return isinstance(jump.node, cst.Return) or (bool(jump.loops) and jump.loops[-1] in fact.event.loops)


def _scaler_used_again(jump: Event) -> bool:
    """Whether the code goes on training after the jump: a ``continue``; a ``break`` out of
    a loop nested in another one (the next epoch); a ``return`` from a function outside any
    loop of its own (a step function, called again for the next batch). A ``break`` or
    ``return`` that ends the training loop only loses the last update, which is harmless."""
    if isinstance(jump.node, cst.Continue):
        return True
    if isinstance(jump.node, cst.Break):
        return len(jump.loops) > 1
    return not jump.loops


class ScalerUpdateSkipped(Rule):
    """
    ## What it does
    Checks for a `continue`, `break` or early `return` that runs after
    `scaler.unscale_(optimizer)` or `scaler.step(optimizer)` and jumps over the
    `scaler.update()` that follows.

    ## Why is this bad?
    A `GradScaler` tracks each optimizer's stage between two `update()` calls: after
    `unscale_()` another `unscale_()` raises `RuntimeError: unscale_() has already been
    called on this optimizer since the last update()`, and after `step()` another `step()`
    raises `step() has already been called since the last update()`. A jump that skips
    `update()` - typically a "skip this batch when the gradient norm is not finite" branch
    - leaves the scaler in that stage, so the next iteration crashes (or, without an
    explicit `unscale_()`, steps with gradients that are still scaled), and the scale
    never backs off after the overflow that caused the skip. Call `scaler.update()` on
    every iteration that unscaled or stepped, including the ones you skip.

    A `continue` after `scaler.scale(loss).backward()` on a micro-batch that does not step
    (gradient accumulation) is the normal idiom and is not reported; neither is a `break`
    or `return` that ends the training loop for good (only the last update is lost).

    ## Example
    ```python
    import math

    import torch

    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda"):
            loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        if not math.isfinite(norm):
            continue
        scaler.step(optimizer)
        scaler.update()
    ```

    Use instead:
    ```python
    import math

    import torch

    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda"):
            loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        if not math.isfinite(norm):
            scaler.update()
            continue
        scaler.step(optimizer)
        scaler.update()
    ```

    ## Fix safety
    There is no automatic fix: whether the skipped iteration should still step, or only
    update the scale, is the author's decision.

    ## References
    - [`torch.amp.GradScaler.update`](https://pytorch.org/docs/stable/amp.html#torch.amp.GradScaler.update)
    - [espnet/espnet#2362: call `scaler.update()` on every iteration, even one whose step is skipped](https://github.com/espnet/espnet/pull/2362)
    - [Haian-Jin/LVSM#19: skipping the optimizer step skipped `update()` and crashed the next `unscale_()`](https://github.com/Haian-Jin/LVSM/pull/19)
    """

    code = "TCK310"
    name = "scaler-update-skipped"
    message = "Jump after `scaler.unscale_()`/`scaler.step()` skips `scaler.update()`; the next iteration raises"
    required_text = (".update(",)

    VALID = (
        Valid(
            """
for step, (x, y) in enumerate(loader):
    scaler.scale(criterion(model(x), y) / accumulation_steps).backward()
    if (step + 1) % accumulation_steps != 0:
        continue
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
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    if not torch.isfinite(norm):
        optimizer.zero_grad()
        scaler.update()
        continue
    scaler.step(optimizer)
    scaler.update()
"""
        ),
        Valid(
            """
for x, y in loader:
    scaler.scale(criterion(model(x), y)).backward()
    for opt in optimizers:
        scaler.unscale_(opt)
        if not has_gradients(opt):
            continue
        torch.nn.utils.clip_grad_norm_(params_of(opt), 1.0)
    for opt in optimizers:
        scaler.step(opt)
    scaler.update()
"""
        ),
        Valid(
            """
def train_step(self, batch):
    loss = self.model(batch).loss
    if not torch.isfinite(loss):
        return None
    self.scaler.scale(loss).backward()
    self.scaler.step(self.optimizer)
    self.scaler.update()
    return loss.detach()
"""
        ),
        Valid(
            """
def train_step(batch):
    try:
        scaler.scale(model(batch).loss).backward()
        scaler.step(optimizer)
        if done():
            return
    finally:
        scaler.update()
"""
        ),
        Valid(
            """
for x, y in loader:
    scaler.scale(criterion(model(x), y)).backward()
    scaler.step(optimizer)
    scaler.update()
    if global_step >= max_steps:
        break
"""
        ),
        Valid(
            """
def fit(self, loader):
    for batch in loader:
        self.scaler.scale(self.model(batch).loss).backward()
        self.scaler.step(self.optimizer)
        if self.should_stop():
            return
        self.scaler.update()
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import math
for x, y in loader:
    scaler.scale(criterion(model(x), y)).backward()
    scaler.unscale_(optimizer)
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    if not math.isfinite(norm):
        optimizer.zero_grad()
        continue  # TCK310
    scaler.step(optimizer)
    scaler.update()
"""
        ),
        Invalid(
            """
def train_step(self, batch):
    self.scaler.scale(self.model(batch).loss).backward()
    self.scaler.unscale_(self.optimizer)
    grad_norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.max_norm)
    if grad_norm > self.skip_threshold:
        self.optimizer.zero_grad()
        return None  # TCK310
    self.scaler.step(self.optimizer)
    self.scaler.update()
    return grad_norm
"""
        ),
        Invalid(
            """
for epoch in range(epochs):
    for step, batch in enumerate(loader):
        scaler.scale(model(batch).loss).backward()
        scaler.step(optimizer)
        if step >= steps_per_epoch:
            break  # TCK310
        scaler.update()
        optimizer.zero_grad()
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._facts: list[ScalerCall] = []

    def visit_Call(self, node: cst.Call) -> None:
        self._facts.extend(scaler_calls(self.context, node, _ACTIONS))

    def leave_Module(self, node: cst.Module) -> None:
        for jump in self.context.flow.exits:
            if type(jump.node) in _JUMPS:
                self._check(jump)

    def _check(self, jump: Event) -> None:
        if not _scaler_used_again(jump):
            return
        before = [
            fact
            for fact in self._facts
            if fact.event.order < jump.order and not fact.event.exclusive_with(jump) and _in_jumped_loop(fact, jump)
        ]
        for scaler in sorted({fact.scaler for fact in before}):
            last = [fact for fact in before if fact.scaler == scaler][-1]
            if last.action == "update" or not last.certain:
                continue
            skipped = self._skipped_update(scaler, jump)
            if skipped is not None:
                self._report(jump, last, skipped)
                return

    def _skipped_update(self, scaler: str, jump: Event) -> ScalerCall | None:
        """The first ``scaler.update()`` after ``jump`` that the jump passes over (an update
        in the ``finally:`` of a ``try`` the jump leaves runs on the way out)."""
        owners = {branch.owner for branch in jump.path}
        for fact in self._facts:
            if (
                fact.action == "update"
                and fact.scaler == scaler
                and fact.event.order > jump.order
                and _in_jumped_loop(fact, jump)
                and self._finally_of(fact) not in owners
            ):
                return fact
        return None

    def _finally_of(self, fact: ScalerCall) -> cst.CSTNode | None:
        """The ``try`` whose ``finally:`` block holds the call, if any."""
        binder = self.context.binder
        block = binder.enclosing(fact.event.node, cst.Finally)
        return binder.parent(block) if block is not None else None

    def _report(self, jump: Event, last: ScalerCall, skipped: ScalerCall) -> None:
        line = self.context.line_of(last.event.node)
        done = f"`{last.scaler}.{last.action}()` at line {line}"
        if last.site is not None:
            done = f"{last.site.describe(self.context.line_of)} (called at line {line})"
        message = _MESSAGE.format(
            jump=_JUMPS[type(jump.node)],
            scaler=skipped.scaler,
            done=done,
            update_line=self.context.line_of(skipped.event.node),
            consequence=_CONSEQUENCE[last.action],
        )
        self.report(jump.node, message)
