from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from torchcheck.lint.context import Loop
from torchcheck.lint.flow import Path, exclusive
from torchcheck.lint.nodes import method_call
from torchcheck.lint.rule import Invalid, Rule, Valid
from torchcheck.rules.amp._common import is_scaler_call, is_tensor_backward


@dataclass
class _LoopFacts:
    steps: list[Path] = field(default_factory=list)  # where scaler.step(opt) runs
    backwards: list[tuple[cst.Call, Path]] = field(default_factory=list)
    scales: bool = False  # some .scale(...) call: the loop does scale its losses


class BackwardNotScaled(Rule):
    """
    ## What it does
    Checks for training loops that step the optimizer through a `GradScaler`
    (`scaler.step(optimizer)`) but call `loss.backward()` instead of
    `scaler.scale(loss).backward()`.

    ## Why is this bad?
    `scaler.step()` divides the gradients by the current scale (65536 at the start) before
    stepping. Gradients computed from an unscaled loss were never multiplied by it, so the
    update is 65536 times too small and the model barely trains, while float16 gradients
    that underflow to zero stay zero. Either scale the loss before `backward()`, or do not
    use the scaler at all.

    A loop that scales its loss anywhere (for example in the mixed-precision branch of an
    `if use_amp: ... else: loss.backward()`) is left alone.

    ## Example
    ```python
    import torch

    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda"):
            loss = criterion(model(x), y)
        loss.backward()
        scaler.step(optimizer)
        scaler.update()
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
    There is no automatic fix: the loss may be meant to be scaled, or the scaler may be
    meant to go.

    ## References
    - [Automatic mixed precision: gradient scaling](https://pytorch.org/docs/stable/amp.html#gradient-scaling)
    - [CUDA AMP examples: typical mixed precision training](https://pytorch.org/docs/stable/notes/amp_examples.html)
    """

    code = "TCK304"
    name = "backward-not-scaled"
    message = "Loss is not scaled before `backward()` although the loop steps through `scaler.step()`; use `scaler.scale(loss).backward()`"
    required_text = (".step(",)

    VALID = (
        Valid(
            """
for x, y in loader:
    with torch.autocast("cuda"):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
"""
        ),
        Valid(
            """
for x, y in loader:
    loss = criterion(model(x), y)
    if scaler is not None:
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
    else:
        loss.backward()
        optimizer.step()
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
for x, y in loader:
    scaled = scaler.scale(criterion(model(x), y))
    scaled.backward()
    scaler.step(optimizer)
    scaler.update()
"""
        ),
        Valid(
            """
for x, y in loader:
    loss = criterion(model(x), y)
    if scaler is not None:
        scaler.step(optimizer)
    else:
        loss.backward()
        optimizer.step()
"""
        ),
        Valid(
            """
for batch in loader:
    loss = model(batch).mean()
    accelerator.backward(loss)
    scaler.step(optimizer)
    scaler.update()
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
scaler = torch.amp.GradScaler("cuda")
for x, y in loader:
    optimizer.zero_grad()
    with torch.autocast("cuda"):
        loss = criterion(model(x), y)
    loss.backward()  # TCK304
    scaler.step(optimizer)
    scaler.update()
"""
        ),
        Invalid(
            """
class Trainer:
    def fit(self):
        for epoch in range(self.epochs):
            for step, batch in enumerate(self.train_loader):
                loss = self.model(batch).mean() / self.accumulation_steps
                loss.backward()  # TCK304
                if (step + 1) % self.accumulation_steps == 0:
                    self.scaler.step(self.optimizer)
                    self.scaler.update()
                    self.optimizer.zero_grad()
"""
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        receiver_method = method_call(node)
        if not self.context.loops or receiver_method is None:
            return
        flow = self.context.flow
        facts = flow.loop_facts(self, _LoopFacts)
        if receiver_method[1] == "scale":
            facts.scales = True
        elif node.args and is_scaler_call(self.context, node, ("step",)):
            facts.steps.append(flow.path)
        elif is_tensor_backward(self.context, node):
            facts.backwards.append((node, flow.path))

    def leave_loop(self, loop: Loop) -> None:
        facts = self.context.flow.loop_facts(self, _LoopFacts)
        if facts.scales or not facts.steps:
            return
        for backward, path in facts.backwards:
            if any(not exclusive(path, step) for step in facts.steps):
                self.report(backward)
