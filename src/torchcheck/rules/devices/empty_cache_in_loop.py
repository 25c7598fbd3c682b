from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from torchcheck.lint.flow import BoundName, Event, encloses
from torchcheck.lint.kinds import Kind, conventional_kind
from torchcheck.lint.nodes import names_read
from torchcheck.lint.rule import Invalid, Valid
from torchcheck.rules.devices._common import PerStepCallRule, is_periodic_condition

if TYPE_CHECKING:
    from torchcheck.lint.context import LintContext

_EMPTY_CACHE = frozenset({"torch.cuda.empty_cache", "torch.cuda.memory.empty_cache", "torch.mps.empty_cache", "torch.xpu.empty_cache"})
# How many assignments to follow back from a condition's name (`log_now = is_step`, `is_step = step % 10 == 0`).
_FLAG_DEPTH = 3


def _deleted_names(target: cst.BaseExpression) -> list[str]:
    """``del a`` and ``del a, b``: the plain names deleted."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _deleted_names(element.value)]
    return []


class EmptyCacheInLoop(PerStepCallRule):
    """
    ## What it does
    Checks for `torch.cuda.empty_cache()` called on every step of a training loop (a loop
    that calls `.backward()`), also inside a function or method of the file that such a
    loop calls on every step (`self.training_step(batch)`, where the step itself may
    backpropagate).

    ## Why is this bad?
    `empty_cache()` hands the caching allocator's unused blocks back to the driver. The next
    step needs the same blocks again, so they are re-allocated with slow `cudaMalloc` calls
    and the GPU synchronises: every step gets slower. It frees nothing that PyTorch would
    not reuse anyway; memory held by live tensors is not released. If memory really grows,
    find the reference that keeps it alive (often a loss kept with its graph). Calling it
    now and then (`if step % 1000 == 0`, or `if export_now:` after
    `export_now = step % every == 0`) or after catching an out-of-memory error is fine, and
    so is calling it right after `del model` in a loop that builds one model per
    configuration (a benchmark or a sweep): the next model gets the freed blocks.

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
import gc
import torch

class Trainer:
    def _clear_memory(self):
        gc.collect()
        torch.cuda.empty_cache()

    def train(self, loader, epochs):
        for epoch in range(epochs):
            for batch in loader:
                self.model(batch).loss.backward()
                self.optimizer.step()
            self._clear_memory()  # once per epoch, not per step
"""
        ),
        Valid(
            """
import torch

class Trainer:
    def free_memory(self):
        torch.cuda.empty_cache()

    def train(self, loader):
        for step, batch in enumerate(loader):
            self.model(batch).loss.backward()
            self.optimizer.step()
            if step % 1000 == 0:
                self.free_memory()  # now and then: fine
"""
        ),
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
for step, batch in enumerate(loader):
    loss = model(batch).mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    export_results = step == 0 or step % vis_every == 0
    if export_results:
        save_images(model, batch)
        torch.cuda.empty_cache()
"""
        ),
        Valid(
            """
import torch
for size in model_sizes:
    model = build_model(size).to("cuda")
    output = model(inputs)
    output.sum().backward()
    timings[size] = measure(model, inputs)
    del model, output
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

class Trainer:
    def training_step(self, model, inputs):
        loss = model(**inputs).loss
        del inputs
        torch.cuda.empty_cache()  # TCK203
        self.accelerator.backward(loss)
        return loss.detach()

    def train(self, loader):
        for inputs in loader:
            self.training_step(self.model, inputs)
            self.optimizer.step()
            self.model.zero_grad()
"""
        ),
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
        Invalid(
            """
import torch
free_memory = torch.cuda.is_available()
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    del loss
    if free_memory:
        torch.cuda.empty_cache()  # TCK203
"""
        ),
    )

    reaches_helpers = True

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._module_deletions: list[Event] = []  # `del model` statements inside loops

    def is_candidate(self, call: cst.Call) -> bool:
        if isinstance(call.func, cst.Attribute) and call.func.attr.value != "empty_cache":
            return False
        return self.context.call_name(call) in _EMPTY_CACHE and not self._follows_module_deletion()

    def is_periodic(self, test: cst.BaseExpression) -> bool:
        """``if export_now:`` where ``export_now = step % every == 0`` is as periodic as the
        inline condition: follow each name to the assignment that surely reaches it."""
        return is_periodic_condition(test) or any(self._bound_to_periodic(name.value, None, _FLAG_DEPTH) for name in names_read(test))

    def _bound_to_periodic(self, name: str, reader: BoundName | None, depth: int) -> bool:
        binding = self.context.flow.reaching_binding(name, reader)
        if binding is None or binding.value is None:
            return False
        if is_periodic_condition(binding.value):
            return True
        return depth > 1 and any(self._bound_to_periodic(inner.value, binding, depth - 1) for inner in names_read(binding.value))

    def visit_Del(self, node: cst.Del) -> None:
        if self.context.loops and any(self._is_module(name) for name in _deleted_names(node.target)):
            self._module_deletions.append(self.context.flow.event(node))

    def _is_module(self, name: str) -> bool:
        # the context already forgot the deleted name: ask what its last assignment built
        binding = self.context.flow.reaching_binding(name)
        kind = self.context.kind_of(binding.value) if binding is not None and binding.value is not None else None
        return (kind or conventional_kind(name)) is Kind.MODULE

    def _follows_module_deletion(self) -> bool:
        """Freeing the cache right after ``del model`` in the same iteration is the documented
        use: a loop that builds a model per configuration (a benchmark, a sweep) hands the
        old model's blocks back before building the next, differently sized one."""
        flow = self.context.flow
        return any(
            deletion.loops == flow.loops and deletion.function is flow.function and encloses(deletion.path, flow.path)
            for deletion in self._module_deletions
        )
