from __future__ import annotations

import libcst as cst

from torchcheck.lint import torch_api
from torchcheck.lint.context import LintContext
from torchcheck.lint.idioms import Effect
from torchcheck.lint.flow import Event, Function
from torchcheck.lint.nodes import method_call
from torchcheck.lint.rule import Invalid, Rule, Valid
from torchcheck.rules.amp._common import is_scaler_call

_SCALER_METHODS = ("scale", "step", "unscale_", "update")


def _runs_with(use: Event, clip: Event, helper_steps: set[cst.CSTNode]) -> bool:
    """The scaler call happens around ``clip``: before it, in a loop they share, or it is the
    ``scaler.step(optimizer)`` after it in the same loops (that step means the gradients were scaled, wherever
    the backward ran); and not in another branch of the same statement."""
    steps = use.node in helper_steps or method_call(use.node)[1] == "step"  # type: ignore[index]
    steps_the_clipped = use.loops == clip.loops and steps
    around = use.order < clip.order or bool(set(use.loops) & set(clip.loops)) or steps_the_clipped
    return not use.exclusive_with(clip) and around


class ClipBeforeUnscale(Rule):
    """
    ## What it does
    Checks for `torch.nn.utils.clip_grad_norm_` / `clip_grad_value_` in code that trains
    through a `GradScaler`, without a `scaler.unscale_(optimizer)` call before the clip.

    ## Why is this bad?
    After `scaler.scale(loss).backward()` every gradient is multiplied by the scale
    (65536 at the start, changing over time). Clipping them clips the *scaled* norm, so
    `max_norm=1.0` effectively becomes `max_norm=1/65536` of the real gradients, and the
    threshold moves every time the scale does. Call `scaler.unscale_(optimizer)` first;
    `scaler.step(optimizer)` then knows the gradients are already unscaled.

    A function that clips and then calls `scaler.step(optimizer)` (in the same loop, or in
    no loop) is reported too, wherever the scaled backward ran: a scaler's step means the
    gradients it steps were scaled.
    A clip in a branch that never runs together with the scaler (the `else:` of
    `if scaler is not None:`) is left alone. A clip in a helper that the scaled step calls
    (`self.check_gradients(loss)` between the backward and `scaler.step`) is reported on the
    clip, unless the helper calls `unscale_` itself. The unscale and the step may also run
    in helpers: a clip after `self._pre_optimizer_step()` that unscales is correct, and one
    before `self._optimizer_step()` that unscales and steps is reported.

    ## Example
    ```python
    import torch

    scaler = torch.amp.GradScaler("cuda")
    scaler.scale(loss).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    scaler.step(optimizer)
    scaler.update()
    ```

    Use instead:
    ```python
    import torch

    scaler = torch.amp.GradScaler("cuda")
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    scaler.step(optimizer)
    scaler.update()
    ```

    ## Fix safety
    There is no automatic fix: which optimizer's gradients to unscale depends on the
    parameters being clipped.

    ## References
    - [CUDA AMP examples: working with unscaled gradients (gradient clipping)](https://pytorch.org/docs/stable/notes/amp_examples.html#gradient-clipping)
    - [`torch.amp.GradScaler.unscale_`](https://pytorch.org/docs/stable/amp.html#torch.amp.GradScaler.unscale_)
    """

    code = "TCK305"
    name = "clip-before-unscale"
    message = "Gradients clipped while still scaled by the GradScaler; call `scaler.unscale_(optimizer)` before clipping"
    required_text = ("clip_grad",)

    VALID = (
        Valid(
            """
import torch

class Trainer:
    def __init__(self, model, optimizer):
        self.model, self.optimizer = model, optimizer
        self.scaler = torch.amp.GradScaler("cuda")

    def _clip_gradients(self):
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)

    def _optimizer_step(self):
        self.scaler.unscale_(self.optimizer)
        self._clip_gradients()
        self.scaler.step(self.optimizer)
        self.scaler.update()

    def training_step(self, tokens, targets):
        with torch.autocast("cuda", dtype=torch.float16):
            loss = self.model(tokens, targets)
        self.scaler.scale(loss).backward()
        self._optimizer_step()
"""
        ),
        Valid(
            """
import torch
for x, y in loader:
    scaler.scale(criterion(model(x), y)).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    scaler.step(optimizer)
    scaler.update()
"""
        ),
        Valid(
            """
from torch.nn.utils import clip_grad_norm_
def train_step(loss):
    if scaler is not None:
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
    else:
        loss.backward()
        clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
"""
        ),
        Valid(
            """
import torch.nn as nn
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    nn.utils.clip_grad_value_(model.parameters(), 0.5)
    optimizer.step()
"""
        ),
        Valid(
            """
import torch
class Trainer:
    def step(self, loss):
        self.scaler.scale(loss).backward()
        if self.max_grad_norm:
            self.scaler.unscale_(self.optimizer)
            for group in self.optimizer.param_groups:
                torch.nn.utils.clip_grad_norm_(group["params"], self.max_grad_norm)
        self.scaler.step(self.optimizer)
        self.scaler.update()
"""
        ),
        Valid(
            """
import torch
def step(loss):
    accelerator.backward(loss)
    accelerator.clip_grad_norm_(model.parameters(), 1.0)
    torch.nn.utils.clip_grad_norm_(head.parameters(), 1.0)
    optimizer.step()
"""
        ),
        Valid(
            """
import torch
def train(model, warmup_loader, loader, optimizer):
    for x in warmup_loader:
        model(x).mean().backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()
    scaler = torch.amp.GradScaler("cuda")
    for x in loader:
        scaler.scale(model(x).mean()).backward()
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
"""
        ),
        Valid(
            """
import torch
class Brain:
    def fit_batch(self, batch):
        self.scaler.scale(self.compute_loss(batch)).backward()
        self.scaler.unscale_(self.optimizer)
        self.clip()
        self.scaler.step(self.optimizer)
        self.scaler.update()

    def fit_batch_in_full_precision(self, batch):
        self.compute_loss(batch).backward()
        self.clip()
        self.optimizer.step()

    def step_with(self, scaler):
        self.unscale_and_clip(scaler)
        scaler.step(self.optimizer)
        scaler.update()

    def clip(self):
        torch.nn.utils.clip_grad_norm_(self.modules.parameters(), 1.0)

    def unscale_and_clip(self, scaler):
        scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.modules.parameters(), 1.0)
"""
        ),
    )

    INVALID = (
        Invalid(
            """
import torch

class Trainer:
    def __init__(self, model, optimizer):
        self.model, self.optimizer = model, optimizer
        self.scaler = torch.amp.GradScaler("cuda")

    def _clip_gradients(self):
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)  # TCK305

    def _optimizer_step(self):
        self.scaler.unscale_(self.optimizer)
        self.scaler.step(self.optimizer)
        self.scaler.update()

    def training_step(self, tokens, targets):
        with torch.autocast("cuda", dtype=torch.float16):
            loss = self.model(tokens, targets)
        self.scaler.scale(loss).backward()
        self._clip_gradients()
        self._optimizer_step()
"""
        ),
        Invalid(
            """
import torch

class Updater:
    def step(self, *, grad_scaler):
        torch.nn.utils.clip_grad_norm_(self.network.parameters(), 1.0)  # TCK305
        grad_scaler.step(self.optimizer)
        grad_scaler.update()
"""
        ),
        Invalid(
            """
import torch
scaler = torch.amp.GradScaler("cuda")
for x, y in loader:
    with torch.autocast("cuda"):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)  # TCK305
    scaler.step(optimizer)
    scaler.update()
"""
        ),
        Invalid(
            """
from torch.nn.utils import clip_grad_norm_
class Trainer:
    def training_step(self, batch):
        loss = self.model(batch).mean()
        if self.use_amp:
            self.scaler.scale(loss).backward()
        else:
            loss.backward()
        clip_grad_norm_(self.model.parameters(), self.max_norm)  # TCK305
        if self.use_amp:
            self.scaler.step(self.optimizer)
            self.scaler.update()
        else:
            self.optimizer.step()
"""
        ),
        Invalid(
            """
import torch
class Brain:
    def fit_batch(self, batch):
        loss = self.compute_loss(batch)
        self.scaler.scale(loss).backward()
        if self.check_gradients(loss):
            self.scaler.step(self.optimizer)
        self.scaler.update()

    def check_gradients(self, loss):
        if not torch.isfinite(loss):
            return False
        torch.nn.utils.clip_grad_norm_(self.modules.parameters(), self.max_grad_norm)  # TCK305
        return True
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._unscaled: set[Function | None] = set()  # the functions (None: the module) seen calling unscale_()
        self._scaler_uses: list[Event] = []
        self._helper_steps: set[cst.CSTNode] = set()  # calls of helpers that step through the scaler
        # clips before any unscale_() of their function, each with the clip call to report
        self._clips: list[tuple[Event, cst.CSTNode]] = []

    def visit_Call(self, node: cst.Call) -> None:
        flow = self.context.flow
        receiver_method = method_call(node)
        if receiver_method is not None and receiver_method[1] in _SCALER_METHODS:
            if receiver_method[1] == "unscale_":
                self._unscaled.add(flow.function)
            if is_scaler_call(self.context, node, _SCALER_METHODS):
                self._scaler_uses.append(flow.event(node))
            return
        summary = self.context.call_summary(node)
        if summary is not None and summary.does(Effect.UNSCALE):
            self._unscaled.add(flow.function)  # `self._pre_optimizer_step()` unscales first
        if summary is not None and summary.does(Effect.UNSCALE) and summary.does(Effect.STEP):  # `self._optimizer_step()`
            self._scaler_uses.append(flow.event(node))
            self._helper_steps.add(node)
        if flow.function not in self._unscaled:
            clip = node if self.context.call_name(node) in torch_api.GRADIENT_CLIPS else self._clip_in_helper(node)
            if clip is not None:
                self._clips.append((flow.event(node), clip))

    def _clip_in_helper(self, call: cst.Call) -> cst.CSTNode | None:
        """The clip that a helper called here runs without unscaling first (``self.check_gradients()``
        clipping the norm): its call when it is in this file, else ``call``."""
        summary = self.context.call_summary(call)
        clip = summary.effect(Effect.CLIP_GRAD) if summary is not None else None
        if clip is None or summary.does(Effect.UNSCALE):  # type: ignore[union-attr]
            return None
        return clip.site.node or call

    def leave_Module(self, node: cst.Module) -> None:
        reported: set[cst.CSTNode] = set()
        for clip, clipped in self._clips:
            if clipped not in reported and any(use.function is clip.function and _runs_with(use, clip, self._helper_steps) for use in self._scaler_uses):
                reported.add(clipped)
                self.report(clipped)
