from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from torchcheck.lint.flow import BoundName, Event, encloses
from torchcheck.lint.idioms import Effect
from torchcheck.lint.kinds import Kind, conventional_kind
from torchcheck.lint.nodes import names_read
from torchcheck.lint.rule import Invalid, Valid
from torchcheck.rules.devices._common import PerStepCallRule, StepCandidate, is_periodic_condition

if TYPE_CHECKING:
    from torchcheck.lint.context import LintContext

_EMPTY_CACHE = frozenset({"torch.cuda.empty_cache", "torch.cuda.memory.empty_cache", "torch.mps.empty_cache", "torch.xpu.empty_cache"})
# How many assignments to follow back from a condition's name (`log_now = is_step`, `is_step = step % 10 == 0`).
_FLAG_DEPTH = 3
# `engine.destroy()` (DeepSpeed) hands a model's memory back like `del model`.
_FREEING_METHODS = frozenset({"destroy"})


def _is_step_name(name: str) -> bool:
    """``optimizer.step()``, ``scaler.step(opt)``, ``engine.step()``, ``xm.optimizer_step(opt)``,
    ``self.training_step(batch)``: the callee names a training step."""
    return name == "step" or name.endswith("_step")


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
    `export_now = step % every == 0`; not the test of an accumulation window whose body steps
    the optimizer, `if (step + 1) % accumulation_steps == 0:`, which runs on every update)
    or after catching an out-of-memory error is fine, and
    so is calling it right after `del model` (or DeepSpeed's `model.destroy()`) in a loop
    that builds one model per configuration (a benchmark or a sweep), or in a function
    that such a loop calls once per configuration: the next model gets the freed blocks.
    A function that runs a whole training loop of its own (backward and optimizer step)
    is one run, not one step: a call after that loop runs once per run.
    A loop that backpropagates but never steps an optimizer (nor calls a `*_step` helper,
    nor a function of the file that steps) is no training loop: it times or checks
    gradients per shape or per implementation, and freeing between variants is how such
    a benchmark keeps one variant's memory out of the next one's measurement.

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
        Valid(
            """
import torch
def compare_kernels(implementations, grad_out, bench):
    timings = []
    for attention in implementations:
        forward_time = bench(attention)
        out = attention()
        out.backward(grad_out)
        timings.append((forward_time, bench(attention, backward=True)))
        del out
        torch.cuda.empty_cache()
    return timings
"""
        ),
        Valid(
            """
import torch

def train_integration(stage, model, optimizer, loader, accelerator):
    model, optimizer = accelerator.prepare(model, optimizer)
    for batch in loader:
        loss = model(**batch).loss
        accelerator.backward(loss)
        optimizer.step()
        optimizer.zero_grad()
    results = evaluate(model)
    torch.cuda.empty_cache()
    return results

for stage in [1, 2, 3]:
    train_integration(stage, build_model(), build_optimizer(), loader, Accelerator())
"""
        ),
        Valid(
            """
import deepspeed
import torch
for stage in (1, 2, 3):
    model, optimizer, _, _ = deepspeed.initialize(model=build_model(), config={"zero_optimization": {"stage": stage}})
    loss = model(inputs).sum()
    model.backward(loss)
    model.step()
    timings[stage] = measure(model, inputs)
    model.destroy()
    torch.cuda.empty_cache()
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch

def train_epoch(model, loader, optimizer, accumulation_steps):
    for step, (x, y) in enumerate(loader):
        loss = torch.nn.functional.mse_loss(model(x), y) / accumulation_steps
        loss.backward()
        if (step + 1) % accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            torch.cuda.empty_cache()  # TCK203
"""
        ),
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
        Invalid(
            """
import torch
for batch in loader:
    for micro_batch in batch.split(4):
        model(micro_batch).mean().backward()
        torch.cuda.empty_cache()  # TCK203
    optimizer.step()
    optimizer.zero_grad()
"""
        ),
        Invalid(
            """
import torch

class Trainer:
    def accumulate(self, batch):
        for micro_batch in batch.split(4):
            self.model(micro_batch).mean().backward()
        torch.cuda.empty_cache()  # TCK203

    def fit(self, loader):
        for batch in loader:
            self.accumulate(batch)
            self.optimizer.step()
            self.optimizer.zero_grad()
"""
        ),
    )

    reaches_helpers = True

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._module_deletions: list[Event] = []  # `del model` statements and `model.destroy()` calls in functions and loops
        self._steps: dict[int, bool] = {}  # id(loop) -> whether it steps an optimizer
        # function -> its outermost loops that backpropagate directly
        self._backward_loops_of: dict[cst.FunctionDef, list[cst.For | cst.While]] = {}

    def is_candidate(self, call: cst.Call) -> bool:
        if isinstance(call.func, cst.Attribute) and call.func.attr.value != "empty_cache":
            return False
        return self.context.call_name(call) in _EMPTY_CACHE and not self._follows_module_deletion()

    def is_periodic(self, test: cst.BaseExpression) -> bool:
        """``if export_now:`` where ``export_now = step % every == 0`` is as periodic as the
        inline condition: follow each name to the assignment that surely reaches it."""
        periodic = is_periodic_condition(test) or any(self._bound_to_periodic(name.value, None, _FLAG_DEPTH) for name in names_read(test))
        return periodic and not self.gates_the_step(test)

    def _bound_to_periodic(self, name: str, reader: BoundName | None, depth: int) -> bool:
        binding = self.context.flow.reaching_binding(name, reader)
        if binding is None or binding.value is None:
            return False
        if is_periodic_condition(binding.value):
            return True
        return depth > 1 and any(self._bound_to_periodic(inner.value, binding, depth - 1) for inner in names_read(binding.value))

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if type(func) is cst.Attribute and func.attr.value in _FREEING_METHODS and type(func.value) is cst.Name and self._in_body():
            if self._is_module(func.value.value):
                self._module_deletions.append(self.context.flow.event(node))
        function, loops = self.context.flow.function, self.context.loops
        if function is not None and loops and type(func) is cst.Attribute and "backward" in func.attr.value:
            if self.context.backward_subject(node) is not None:
                self._backward_loops_of.setdefault(function, []).append(loops[0])
        super().visit_Call(node)

    def visit_Del(self, node: cst.Del) -> None:
        if self._in_body() and any(self._is_module(name) for name in _deleted_names(node.target)):
            self._module_deletions.append(self.context.flow.event(node))

    def _in_body(self) -> bool:
        """In a loop or a function: where a candidate can be (module-level code runs once)."""
        return bool(self.context.loops) or self.context.flow.function is not None

    def _is_module(self, name: str) -> bool:
        # the context already forgot the deleted name: ask what its last assignment built
        binding = self.context.flow.reaching_binding(name)
        kind = self.context.kind_of(binding.value) if binding is not None and binding.value is not None else None
        return (kind or conventional_kind(name)) is Kind.MODULE

    def _steps_optimizer(self, loop: cst.For | cst.While) -> bool:
        """Whether ``loop`` (its nested loops included) steps an optimizer: a ``step`` call,
        a ``*_step`` helper, or a function of the file that steps. Complete once the loop is."""
        known = self._steps.get(id(loop))
        if known is None:
            known = self._steps[id(loop)] = any(
                _is_step_name(name) or self._call_steps(call) for name, call in self.context.calls_in_loop(loop)
            )
        return known

    def _trains_in_own_loop(self, function: cst.FunctionDef) -> bool:
        return any(self._steps_optimizer(loop) for loop in self._backward_loops_of.get(function, ()))

    def _call_steps(self, call: cst.Call) -> bool:
        summary = self.context.call_summary(call)
        return summary is not None and summary.does(Effect.STEP)

    def leave_loop(self, loop: cst.For | cst.While) -> None:
        """As the base decides, with only the loops that train: a loop that backpropagates
        counts when it, or a loop around it, steps an optimizer."""
        facts = self._facts()
        for candidate in facts.candidates:
            if self._runs_every_step(candidate, self._training_loops(candidate, facts.backward_loops)):
                self.report(candidate.call)

    def _training_loops(self, candidate: StepCandidate, backward_loops: set[cst.For | cst.While]) -> set[cst.For | cst.While]:
        return {
            loop
            for depth, loop in enumerate(candidate.loops)
            if loop in backward_loops and any(self._steps_optimizer(outer) for outer in candidate.loops[: depth + 1])
        }

    def leave_Module(self, node: cst.Module) -> None:
        """As the base decides for a candidate in a helper, counting only the calls of the
        helper from a loop that steps an optimizer (or inside one that does), and no helper
        that runs a whole training loop of its own (backward and step): a candidate after
        that loop runs once per run (a sweep calling ``train(config)``), not once per step."""
        self._in_functions[:] = [(call, function) for call, function in self._in_functions if not self._trains_in_own_loop(function)]
        binder = self.context.binder
        for loops in self._called_per_step.values():
            loops[:] = [loop for loop in loops if any(self._steps_optimizer(outer) for outer in (*binder.loops_around(loop), loop))]
        super().leave_Module(node)

    def _follows_module_deletion(self) -> bool:
        """Freeing the cache right after ``del model`` in the same iteration is the documented
        use: a loop that builds a model per configuration (a benchmark, a sweep) hands the
        old model's blocks back before building the next, differently sized one."""
        flow = self.context.flow
        return any(
            deletion.loops == flow.loops and deletion.function is flow.function and encloses(deletion.path, flow.path)
            for deletion in self._module_deletions
        )
