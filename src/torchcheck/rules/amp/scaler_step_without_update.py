from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from torchcheck.lint.context import Loop
from torchcheck.lint.kinds import Kind
from torchcheck.lint.nodes import method_call, source_text
from torchcheck.lint.rule import Invalid, Rule, Valid
from torchcheck.lint.summaries import ANONYMOUS, spelled
from torchcheck.rules.amp._common import is_scaler_call


class ScalerStepWithoutUpdate(Rule):
    """
    ## What it does
    Checks for training loops that call `scaler.step(optimizer)` on a `GradScaler` but
    never `scaler.update()` (in the loop or in a loop around it; a helper function of the
    same file that calls `update()` on the scaler it is given counts), also where the step is
    in a helper of the file the loop calls (reported at that step).

    ## Why is this bad?
    `scaler.step()` skips the optimizer step when the gradients contain infs or NaNs, and
    `scaler.update()` is what then lowers the scale (and slowly raises it again after a run
    of good steps). Without `update()` the scale never changes: after the first overflow
    every later step finds infs again and is skipped, so the model silently stops
    training. Call `scaler.update()` once per iteration, after all `scaler.step()` calls.

    ## Example
    ```python
    import torch

    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda"):
            loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
    ```

    Use instead:
    ```python
    import torch

    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda"):
            loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
    ```

    ## Fix safety
    There is no automatic fix: with several optimizers `update()` must come after the last
    `step()`, which only the author knows.

    ## References
    - [`torch.amp.GradScaler.update`](https://pytorch.org/docs/stable/amp.html#torch.amp.GradScaler.update)
    - [CUDA AMP examples: typical mixed precision training](https://pytorch.org/docs/stable/notes/amp_examples.html)
    """

    code = "TCK303"
    name = "scaler-step-without-update"
    message = "Loop calls `scaler.step()` but never `scaler.update()`; after one overflow every step is skipped"
    required_text = (".step(",)

    VALID = (
        Valid(
            """
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
"""
        ),
        Valid(
            """
for batch in loader:
    scaler.scale(compute_loss(batch)).backward()
    for opt in (generator_opt, discriminator_opt):
        scaler.step(opt)
    scaler.update()
"""
        ),
        Valid(
            """
def step_all(scaler, optimizers):
    for opt in optimizers:
        scaler.step(opt)
    scaler.update()
"""
        ),
        Valid(
            """
for epoch in range(epochs):
    for x, y in loader:
        loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        optimizer.zero_grad()
        if should_update(epoch):
            scaler.update(new_scale)
"""
        ),
        Valid(
            """
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    lr_scheduler.step()
"""
        ),
        Valid(
            """
def finish_step(grad_scaler):
    grad_scaler.update()
    optimizer.zero_grad()

for x, y in loader:
    scaler.scale(criterion(model(x), y)).backward()
    scaler.step(optimizer)
    finish_step(scaler)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch

def compute_loss(batch, model, optimizer, scaler, is_training):
    with torch.autocast("cuda"):
        loss = model(batch)
    if is_training:
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)  # TCK303
    return loss.item()

def train_one_epoch(loader, model, optimizer, scaler):
    for batch in loader:
        compute_loss(batch, model, optimizer, scaler, is_training=True)
"""
        ),
        Invalid(
            """
import torch
scaler = torch.amp.GradScaler("cuda")
for x, y in loader:
    optimizer.zero_grad()
    with torch.autocast("cuda"):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)  # TCK303
"""
        ),
        Invalid(
            """
class Trainer:
    def fit(self):
        for epoch in range(self.epochs):
            for batch in self.train_loader:
                loss = self.model(batch).mean()
                self.scaler.scale(loss).backward()
                self.scaler.unscale_(self.optimizer)
                self.scaler.step(self.optimizer)  # TCK303
                self.optimizer.zero_grad()
"""
        ),
    )

    def _facts(self) -> _LoopFacts:
        return self.context.flow.loop_facts(self, _LoopFacts)

    def visit_Call(self, node: cst.Call) -> None:
        if not self.context.loops:
            return
        summary = self.context.call_summary(node)
        receiver_method = method_call(node)
        if summary is not None:  # a helper of this file that calls `scaler.update()` updates the scale too
            for effect in summary.effects:
                if effect.action == "update" and effect.target != ANONYMOUS:
                    self._updated(effect.target, spelled(effect.target))
                elif effect.action == "step" and effect.target != ANONYMOUS and isinstance(site := effect.site.node, cst.Call) and is_scaler_call(self.context, site, ("step",)):
                    self._facts().steps.append((site, effect.target))  # `get_objf(..., scaler=scaler)` steps through it
        elif receiver_method is not None and receiver_method[1] == "update":
            self._updated(source_text(receiver_method[0]), receiver_method[0])
        elif receiver_method is not None and node.args and is_scaler_call(self.context, node, ("step",)):
            self._facts().steps.append((node, source_text(receiver_method[0])))

    def _updated(self, receiver: str, expression: cst.BaseExpression) -> None:
        facts = self._facts()
        facts.updated.add(receiver)
        facts.scaler_updated |= self.context.kind_of(expression) is Kind.SCALER

    def leave_loop(self, loop: Loop) -> None:
        facts = self._facts()
        if not facts.steps or facts.scaler_updated or not self.context.is_training_loop(loop):
            return
        first, receiver = facts.steps[0]
        if receiver not in facts.updated:
            self.report(first)


@dataclass
class _LoopFacts:
    steps: list[tuple[cst.Call, str]] = field(default_factory=list)
    updated: set[str] = field(default_factory=set)  # receivers of .update() calls
    scaler_updated: bool = False
