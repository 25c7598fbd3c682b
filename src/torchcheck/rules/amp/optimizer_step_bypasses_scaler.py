from __future__ import annotations

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.flow import Event
from torchcheck.lint.kinds import Kind
from torchcheck.lint.nodes import method_call, source_text
from torchcheck.lint.rule import Invalid, Rule, Valid
from torchcheck.rules.amp._common import is_scaler_call


_STEPPED_TWICE = (
    "`optimizer.step()` on the same path as `scaler.step(optimizer)`: the optimizer steps twice per iteration; "
    "let the scaler step it"
)


class OptimizerStepBypassesScaler(Rule):
    """
    ## What it does
    Checks for `optimizer.step()` after `scaler.scale(loss).backward()`, where the step
    should go through the scaler: `scaler.step(optimizer)`.

    ## Why is this bad?
    `scaler.scale(loss).backward()` leaves every gradient multiplied by the scale (65536 at
    the start). `scaler.step(optimizer)` divides them back and skips the step when they
    contain infs or NaNs; `optimizer.step()` does neither, so the parameters move by
    gradients tens of thousands of times too large (and by infs after an overflow), and
    `scaler.update()` never learns about overflows.

    The mixed/full precision split `if use_amp: scaler.step(optimizer) else:
    optimizer.step()` is correct and left alone. An `optimizer.step()` on the same path as
    `scaler.step(optimizer)` is reported too: the optimizer steps twice per iteration,
    unless its gradients are zeroed between the two and no scaled backward runs before the
    second (a separate, unscaled update such as StyleGAN's lazy R1 step). A
    `step` handed the scaler (`optimizers.step("generator", scaler=scaler)`) is a project's
    wrapper that steps through it (no PyTorch optimizer takes a scaler): left alone.
    The scaled backward may run in a function of the file that the loop calls
    (`train_batch(model, batch, optimizer, scaler)`): a second optimizer stepped plainly
    after it, in the caller, steps scaled gradients.

    ## Example
    ```python
    import torch

    scaler = torch.amp.GradScaler("cuda")
    scaler.scale(loss).backward()
    optimizer.step()
    scaler.update()
    ```

    Use instead:
    ```python
    import torch

    scaler = torch.amp.GradScaler("cuda")
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    ```

    ## Fix safety
    There is no automatic fix: `scaler.step(optimizer)` also needs `scaler.update()`
    afterwards, and with several optimizers only the author knows which ones the scaled
    loss fed.

    ## References
    - [Automatic mixed precision: gradient scaling](https://pytorch.org/docs/stable/amp.html#gradient-scaling)
    - [`torch.amp.GradScaler.step`](https://pytorch.org/docs/stable/amp.html#torch.amp.GradScaler.step)
    """

    code = "TCK307"
    name = "optimizer-step-bypasses-scaler"
    message = "`optimizer.step()` after `scaler.scale(loss).backward()` steps with scaled gradients; use `scaler.step(optimizer)`"
    required_text = (".scale(",)

    VALID = (
        Valid(
            """
import torch

def train_step(model, optimizer, x):
    scaler = torch.amp.GradScaler("cuda")
    optimizer.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(x)
    scaler.scale(loss).backward()
    optimizer.step("generator", scaler=scaler)
"""
        ),
        Valid(
            """
for x, y in loader:
    scaler.scale(criterion(model(x), y)).backward()
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
"""
        ),
        Valid(
            """
for x, y in loader:
    loss = criterion(model(x), y)
    if use_amp:
        scaler.scale(loss).backward()
    else:
        loss.backward()
    if use_amp:
        scaler.step(optimizer)
        scaler.update()
    else:
        optimizer.step()
"""
        ),
        Valid(
            """
def train_step(loss):
    if scaler is not None:
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
    else:
        loss.backward()
        optimizer.step()
    lr_scheduler.step()
"""
        ),
        Valid(
            """
def backward(loss):
    scaler.scale(loss).backward()

def step():
    optimizer.step()
"""
        ),
        Valid(
            """
import torch

def discriminator_step(dis, d_optimizer, scaler, real, fake, step, reg_interval):
    d_optimizer.zero_grad()
    with torch.autocast("cuda"):
        loss = dis(fake).mean() - dis(real).mean()
    scaler.scale(loss).backward()
    scaler.step(d_optimizer)
    scaler.update()
    if step % reg_interval == 0:
        d_optimizer.zero_grad()
        real.requires_grad_(True)
        penalty = r1_penalty(dis(real), real) * reg_interval
        penalty.backward()
        d_optimizer.step()
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch

def train_batch(model, batch, optimizer, scaler):
    optimizer.zero_grad()
    loss = model(batch)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()

def main(model, poses, loader, optimizer):
    pose_optimizer = torch.optim.SparseAdam(list(poses.parameters()))
    scaler = torch.amp.GradScaler("cuda")
    for batch in loader:
        pose_optimizer.zero_grad()
        train_batch(model, batch, optimizer, scaler)
        pose_optimizer.step()  # TCK307
"""
        ),
        Invalid(
            """
import torch

def discriminator_step(dis, d_optimizer, scaler, real, fake, step, reg_interval):
    d_optimizer.zero_grad()
    with torch.autocast("cuda"):
        loss = dis(fake).mean() - dis(real).mean()
    scaler.scale(loss).backward()
    scaler.step(d_optimizer)
    scaler.update()
    if step % reg_interval == 0:
        d_optimizer.zero_grad()
        with torch.autocast("cuda"):
            penalty = r1_penalty(dis(real), real) * reg_interval
        scaler.scale(penalty).backward()
        d_optimizer.step()  # TCK307
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
    optimizer.step()  # TCK307
    scaler.update()
"""
        ),
        Invalid(
            """
class Trainer:
    def training_step(self, batch):
        scaled = self.scaler.scale(self.model(batch).mean())
        scaled.backward()
        self.scaler.unscale_(self.optimizer)
        self.optimizer.step()  # TCK307
"""
        ),
        Invalid(
            """
def train_gan(real, noise):
    scaler.scale(d_loss(real, noise)).backward()
    scaler.step(d_optimizer)
    scaler.scale(g_loss(noise)).backward()
    g_optimizer.step()  # TCK307
    scaler.update()
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._scaled_backwards: list[Event] = []
        self._through_scaler: list[tuple[Event, str]] = []  # scaler.step(opt), with `opt`
        self._steps: list[tuple[Event, str]] = []  # optimizer.step() after a scaled backward, with the optimizer
        self._zero_grads: list[tuple[Event, str]] = []  # optimizer.zero_grad(), with the optimizer
        self._helper_calls: list[tuple[Event, cst.FunctionDef]] = []  # calls of the file's functions, with the callee

    def visit_Call(self, node: cst.Call) -> None:
        flow = self.context.flow
        if (helper := self.context.resolve_call(node)) is not None:
            self._helper_calls.append((flow.event(node), helper.function))
            return
        receiver_method = method_call(node)
        if receiver_method is None:
            return
        receiver, method = receiver_method
        if method == "backward" and self._is_scaled(receiver):
            self._scaled_backwards.append(flow.event(node))
        elif method == "zero_grad":
            self._zero_grads.append((flow.event(node), source_text(receiver)))
        elif method == "step":
            if is_scaler_call(self.context, node, ("step",)):
                event = flow.event(node)
                self._through_scaler.extend((event, source_text(argument.value)) for argument in node.args)
            elif self.context.kind_of(receiver) is Kind.OPTIMIZER and not self._given_the_scaler(node):
                self._steps.append((flow.event(node), source_text(receiver)))

    def _update_of_its_own(self, scaled: Event, step: Event, optimizer: str, backwards: list[Event]) -> bool:
        """Between the scaler's step and this one the optimizer's gradients are zeroed and no
        scaled backward runs: a second, unscaled update (a lazy regularization step), not the
        same one twice."""
        zeroed = any(name == optimizer and scaled.order < zero.order < step.order for zero, name in self._zero_grads)
        return zeroed and not any(scaled.order < backward.order < step.order for backward in backwards)

    def _given_the_scaler(self, step: cst.Call) -> bool:
        """``optimizers.step("generator", scaler=scaler)``: no optimizer of PyTorch takes a
        scaler, so this is the project's wrapper, which steps through it."""
        return any(self.context.kind_of(argument.value) is Kind.SCALER for argument in step.args)

    def _is_scaled(self, receiver: cst.BaseExpression) -> bool:
        """``scaler.scale(loss)``, or a name last bound to one (``scaled = scaler.scale(loss)``)."""
        if isinstance(receiver, cst.Name):
            binding = self.context.flow.last_binding(receiver.value)
            receiver = binding.value if binding is not None and binding.value is not None else receiver
        return isinstance(receiver, cst.Call) and is_scaler_call(self.context, receiver, ("scale",))

    def _with_helpers(self) -> list[Event]:
        """The scaled backwards, and the calls of the file's functions that run one, directly
        or through their own helpers (``train_batch(..., scaler=scaler)``, then a second
        optimizer's plain ``step()`` in the caller's loop)."""
        scaled, scaling = list(self._scaled_backwards), {backward.function for backward in self._scaled_backwards}
        while new := [(call, callee) for call, callee in self._helper_calls if callee in scaling and call not in scaled]:
            scaled.extend(call for call, _ in new)
            scaling.update(call.function for call, _ in new)
        return scaled

    def leave_Module(self, node: cst.Module) -> None:
        scaled = self._with_helpers()
        for step, optimizer in self._steps:
            through_scaler = [
                use for use, name in self._through_scaler if name == optimizer and use.function is step.function
            ]
            backwards = [backward for backward in scaled if backward.function is step.function]
            if not backwards:
                continue
            if any(not step.exclusive_with(use) and not self._update_of_its_own(use, step, optimizer, backwards) for use in through_scaler):
                self.report(step.node, _STEPPED_TWICE)  # on the same path as the scaler's step of it
            elif not through_scaler and any(not step.exclusive_with(backward) for backward in backwards):
                self.report(step.node)
