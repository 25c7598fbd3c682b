from __future__ import annotations

import libcst as cst

from torchcheck.lint.rule import Invalid, Rule, Valid
from torchcheck.rules.amp._common import runs_backward


class BackwardInsideAutocast(Rule):
    """
    ## What it does
    Checks for `.backward()` called inside a `with torch.autocast(...)` block (or
    `torch.amp.autocast` / `torch.cuda.amp.autocast`), and for a framework's backward
    (`accelerator.backward(loss)`, Lightning's `self.manual_backward(loss)`) inside such a
    block or the framework's own (`with accelerator.autocast():`).

    ## Why is this bad?
    Autocast should wrap only the forward pass and the loss computation. The backward ops
    already run in the dtype autocast chose for the matching forward ops; running
    `backward()` under autocast is explicitly not recommended by PyTorch and can re-cast
    tensors created during the backward pass (for example in custom autograd functions or
    with `create_graph=True`) to a different dtype than their forward counterparts. Close
    the `with` block after computing the loss and call `backward()` outside it.

    A block opened with `enabled=False` turns autocast off, so `backward()` inside it is
    fine.

    ## Example
    ```python
    import torch

    scaler = torch.amp.GradScaler("cuda")
    with torch.autocast("cuda"):
        loss = criterion(model(x), y)
        scaler.scale(loss).backward()
    ```

    Use instead:
    ```python
    import torch

    scaler = torch.amp.GradScaler("cuda")
    with torch.autocast("cuda"):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    ```

    ## Fix safety
    There is no automatic fix: the statements after the `backward()` call may or may not
    belong in the autocast region.

    ## References
    - [Automatic mixed precision: `autocast`](https://pytorch.org/docs/stable/amp.html#autocasting)
    - [CUDA AMP examples: typical mixed precision training](https://pytorch.org/docs/stable/notes/amp_examples.html)
    """

    code = "TCK302"
    name = "backward-inside-autocast"
    message = "`backward()` runs inside an autocast region; call it after the `with autocast(...)` block"
    required_text = ("autocast",)

    VALID = (
        Valid(
            """
from accelerate import Accelerator

class Trainer:
    def __init__(self, model, mixed_precision="fp16"):
        self.accelerator = Accelerator(mixed_precision=mixed_precision)
        self.model = model

    def step(self, batch, accumulation):
        with self.accelerator.autocast():
            loss = self.model(batch)
        self.accelerator.backward(loss / accumulation)
"""
        ),
        Valid(
            """
import torch
for x, y in loader:
    with torch.autocast("cuda", dtype=torch.float16):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
"""
        ),
        Valid(
            """
import torch
with torch.autocast("cuda"):
    out = model(x)
    with torch.autocast("cuda", enabled=False):
        loss = criterion(out.float(), y)
        loss.backward()
"""
        ),
        Valid(
            """
import torch
with torch.autocast("cuda"):
    def closure():
        loss = model(x).sum()
        loss.backward()
        return loss
optimizer.step(closure)
"""
        ),
        Valid(
            """
import torch
with torch.autocast("cuda"):
    loss = model(x).sum()
    accelerator.backward(loss)
    super().backward()
"""
        ),
        Valid(
            """
from contextlib import nullcontext
with nullcontext():
    loss = model(x).sum()
    loss.backward()
"""
        ),
    )
    INVALID = (
        Invalid(
            """
from accelerate import Accelerator

class Trainer:
    def __init__(self, model, mixed_precision="fp16"):
        self.accelerator = Accelerator(mixed_precision=mixed_precision)
        self.model = model

    def step(self, batch, accumulation):
        with self.accelerator.autocast():
            loss = self.model(batch)
            self.accelerator.backward(loss / accumulation)  # TCK302
"""
        ),
        Invalid(
            """
import torch
for x, y in loader:
    with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
        loss = criterion(model(x), y)
        loss.backward()  # TCK302
    optimizer.step()
"""
        ),
        Invalid(
            """
from torch.cuda.amp import autocast
class Trainer:
    def train_step(self, batch):
        with autocast(enabled=self.use_amp):
            loss = self.model(batch).mean()
            self.scaler.scale(loss).backward()  # TCK302
        self.scaler.step(self.optimizer)
        self.scaler.update()
"""
        ),
        Invalid(
            """
import torch
with torch.amp.autocast("cuda"), torch.enable_grad():
    for x in batches:
        model(x).sum().backward(retain_graph=True)  # TCK302
"""
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.in_autocast and runs_backward(self.context, node):
            self.report(node)
