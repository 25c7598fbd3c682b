from __future__ import annotations

import libcst as cst

from torchcheck.lint.rule import Invalid, Valid
from torchcheck.rules.devices._common import PerStepCallRule

_EMPTY_CACHE = frozenset({"torch.cuda.empty_cache", "torch.cuda.memory.empty_cache", "torch.mps.empty_cache", "torch.xpu.empty_cache"})


class EmptyCacheInLoop(PerStepCallRule):
    """
    ## What it does
    Checks for `torch.cuda.empty_cache()` called on every step of a training loop (a loop
    that calls `.backward()`).

    ## Why is this bad?
    `empty_cache()` hands the caching allocator's unused blocks back to the driver. The next
    step needs the same blocks again, so they are re-allocated with slow `cudaMalloc` calls
    and the GPU synchronises: every step gets slower. It frees nothing that PyTorch would
    not reuse anyway; memory held by live tensors is not released. If memory really grows,
    find the reference that keeps it alive (often a loss kept with its graph). Calling it
    now and then (`if step % 1000 == 0`) or after catching an out-of-memory error is fine.

    ## Example
    ```python
    import torch

    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        torch.cuda.empty_cache()
    ```

    Use instead:
    ```python
    import torch

    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    ```

    ## Fix safety
    There is no automatic fix: deleting the call is almost always right, but some code
    relies on it to share a GPU with another process.

    ## References
    - [CUDA semantics: memory management](https://pytorch.org/docs/stable/notes/cuda.html#memory-management)
    - [`torch.cuda.empty_cache`](https://pytorch.org/docs/stable/generated/torch.cuda.empty_cache.html)
    """

    code = "TCK203"
    name = "empty-cache-in-loop"
    message = "`torch.cuda.empty_cache()` on every training step slows each step and frees nothing reusable"
    required_text = ("empty_cache",)

    VALID = (
        Valid(
            """
import torch
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
    torch.cuda.empty_cache()
    evaluate(model)
"""
        ),
        Valid(
            """
import torch
for step, (x, y) in enumerate(loader):
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    if step % 1000 == 0:
        torch.cuda.empty_cache()
"""
        ),
        Valid(
            """
import torch
for x, y in loader:
    try:
        loss = criterion(model(x), y)
        loss.backward()
    except torch.cuda.OutOfMemoryError:
        optimizer.zero_grad()
        torch.cuda.empty_cache()
        continue
    optimizer.step()
    optimizer.zero_grad()
"""
        ),
        Valid(
            """
import torch
for checkpoint in checkpoints:
    model.load_state_dict(torch.load(checkpoint, weights_only=True))
    results.append(evaluate(model))
    torch.cuda.empty_cache()
"""
        ),
        Valid(
            """
import torch
def train_step(batch):
    loss = model(batch).mean()
    loss.backward()
    torch.cuda.empty_cache()
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    torch.cuda.empty_cache()  # TCK203
"""
        ),
        Invalid(
            """
import gc
from torch.cuda import empty_cache

class Trainer:
    def fit(self):
        for epoch in range(self.epochs):
            for batch in self.train_loader:
                loss = self.model(batch).loss
                self.scaler.scale(loss).backward()
                self.scaler.step(self.optimizer)
                self.scaler.update()
                self.optimizer.zero_grad()
                del loss
                gc.collect()
                empty_cache()  # TCK203
"""
        ),
        Invalid(
            """
import torch as T
step = 0
while step < max_steps:
    loss = model(next(batches)).sum()
    loss.backward()
    opt.step()
    opt.zero_grad()
    if T.cuda.is_available():
        T.cuda.empty_cache()  # TCK203
    step += 1
"""
        ),
    )

    def is_candidate(self, call: cst.Call) -> bool:
        if isinstance(call.func, cst.Attribute) and call.func.attr.value != "empty_cache":
            return False
        return self.context.call_name(call) in _EMPTY_CACHE
