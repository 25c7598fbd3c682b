from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from torchcheck.lint.context import Kind, LintContext, Loop
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid

_CONTAINER_METHODS = frozenset({"append", "extend", "insert"})


@dataclass(frozen=True)
class _Candidate:
    node: cst.CSTNode  # the append call or the augmented assignment
    value: cst.BaseExpression  # what is stored
    loops: tuple[Loop, ...]
    graph_attached: bool  # known to carry a graph when stored


def _root_name(expression: cst.BaseExpression) -> str | None:
    while isinstance(expression, (cst.Attribute, cst.Subscript)):
        expression = expression.value
    return expression.value if isinstance(expression, cst.Name) else None


class LossKeptWithGraph(Rule):
    """
    ## What it does
    Checks for graph-attached tensors (a loss, a model output, anything `.backward()` is
    called on) stored across iterations of a training or evaluation loop: appended to a
    list, or accumulated with `+=` into a variable created before the loop.

    ## Why is this bad?
    A tensor that requires grad holds a reference to the whole autograd graph that produced
    it: every activation saved for backward. Keeping one per iteration keeps every
    iteration's graph alive, so memory grows step after step until the run dies with an
    out-of-memory error, usually hours in. Store a Python number with `.item()` (or a
    detached tensor with `.detach()`) instead.

    ## Example
    ```python
    losses = []
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss)
    ```

    Use instead:
    ```python
    losses = []
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())
    ```

    ## Fix safety
    The fix appends `.item()`, which is unsafe: it is offered only for values that are
    scalars (something `.backward()` is called on, or a loss), it synchronises with the GPU,
    and the stored values become Python floats rather than tensors.

    ## References
    - [PyTorch FAQ: my model reports "cuda runtime error(2): out of memory"](https://pytorch.org/docs/stable/notes/faq.html#my-model-reports-cuda-runtime-error-2-out-of-memory)
    - [`torch.Tensor.item`](https://pytorch.org/docs/stable/generated/torch.Tensor.item.html)
    """

    code = "TCK101"
    name = "loss-kept-with-graph"
    message = "Graph-attached tensor kept across loop iterations; store `.item()` or `.detach()`"
    fix_title = "Store `.item()`"
    fix_safety = FixSafety.UNSAFE
    required_text = (".append(", ".extend(", ".insert(", "+=")

    VALID = (
        Valid(
            """
import torch
losses = []
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    losses.append(loss.item())
"""
        ),
        Valid(
            """
import torch
losses, total = [], 0.0
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    losses.append(loss.detach())
    total += float(loss)
"""
        ),
        Valid(
            """
import torch
preds = []
with torch.no_grad():
    for x, y in loader:
        preds.append(model(x))
"""
        ),
        Valid(
            """
import torch

@torch.no_grad()
def evaluate(model, loader):
    outputs = []
    for x, _ in loader:
        outputs.append(model(x))
    return outputs
"""
        ),
        Valid(
            """
import torch
for x, y in loader:
    loss = criterion(model(x), y)
    loss += 0.1 * model.weight.norm()
    loss.backward()
"""
        ),
        Valid(
            """
import torch.nn as nn

class Encoder(nn.Module):
    def forward(self, x):
        features = []
        for block in self.blocks:
            x = self.norm(block(x))
            features.append(x)
        return features
"""
        ),
        Valid(
            """
count = 0
for batch in loader:
    count += 1
"""
        ),
        Valid(
            """
import torch
for x, y in loader:
    def closure():
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        return loss
    optimizer.step(closure)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
losses = []
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    losses.append(loss)  # TCK101
""",
            expected_replacement="""
import torch
losses = []
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    losses.append(loss.item())  # TCK101
""",
        ),
        Invalid(
            """
import torch
total_loss = 0
for x, y in loader:
    loss = model(x).sum()
    loss.backward()
    total_loss += loss  # TCK101
""",
            expected_replacement="""
import torch
total_loss = 0
for x, y in loader:
    loss = model(x).sum()
    loss.backward()
    total_loss += loss.item()  # TCK101
""",
        ),
        Invalid(
            """
import torch
outputs = []
for x, _ in loader:
    outputs.append(model(x))  # TCK101
"""
        ),
        Invalid(
            """
import torch
for epoch in range(10):
    history = []
    for step, (x, y) in enumerate(train_loader):
        out = outputs = model(x)
        loss = loss_fn(out, y)
        history.append(loss)  # TCK101
        loss.backward()
""",
            expected_replacement="""
import torch
for epoch in range(10):
    history = []
    for step, (x, y) in enumerate(train_loader):
        out = outputs = model(x)
        loss = loss_fn(out, y)
        history.append(loss.item())  # TCK101
        loss.backward()
""",
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._candidates: list[_Candidate] = []
        self._assigned_in_loop: dict[Loop, set[str]] = {}

    def visit_Call(self, node: cst.Call) -> None:
        if not isinstance(node.func, cst.Attribute) or node.func.attr.value not in _CONTAINER_METHODS:
            return
        if not node.args or node.func.attr.value == "insert" and len(node.args) < 2:
            return
        value = node.args[-1].value
        if node.func.attr.value == "extend":
            if not isinstance(value, (cst.List, cst.Tuple)) or not value.elements:
                return
            value = value.elements[0].value
        self._consider(node, _root_name(node.func.value), value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.operator, cst.AddAssign):
            self._consider(node, _root_name(node.target), node.value)

    def _consider(self, node: cst.CSTNode, container: str | None, value: cst.BaseExpression) -> None:
        loops = self.context.loops
        if not loops or container is None or self.context.grad_maybe_disabled or self.context.in_module_class:
            return
        if container in self._assigned_in_loop.get(loops[-1], set()):
            return  # created inside this iteration: dies with it
        kind = self.context.kind_of(value)
        if kind is Kind.GRAPH_TENSOR or (kind is None and isinstance(value, cst.Name)):
            self._candidates.append(_Candidate(node, value, loops, kind is Kind.GRAPH_TENSOR))

    def _record_assignment(self, target: cst.BaseExpression) -> None:
        names = [target.value] if isinstance(target, cst.Name) else [
            element.value.value
            for element in getattr(target, "elements", ())
            if isinstance(element.value, cst.Name)
        ]
        for loop in self.context.loops:
            self._assigned_in_loop.setdefault(loop, set()).update(names)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._record_assignment(target.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._record_assignment(node.target)

    def leave_For(self, node: cst.For) -> None:
        self._resolve(node)

    def leave_While(self, node: cst.While) -> None:
        self._resolve(node)

    def _resolve(self, loop: Loop) -> None:
        """Decide once the outermost loop is complete: only then are all its calls known."""
        for candidate in [c for c in self._candidates if c.loops[0] is loop]:
            backward_names = {_root_name(call.func.value) for _, call in self._backward_calls(candidate.loops[-1])}
            is_backward_target = isinstance(candidate.value, cst.Name) and candidate.value.value in backward_names
            if not (candidate.graph_attached or is_backward_target):
                continue
            if not (is_backward_target or any(self._is_data_loop(loop) for loop in candidate.loops)):
                continue
            self._report(candidate, scalar=is_backward_target or _looks_like_loss(candidate.value))
        self._candidates = [c for c in self._candidates if c.loops[0] is not loop]

    def _backward_calls(self, loop: Loop) -> list[tuple[str, cst.Call]]:
        return [
            (name, call)
            for name, call in self.context.calls_in_loop(loop)
            if name == "backward" and isinstance(call.func, cst.Attribute)
        ]

    def _is_data_loop(self, loop: Loop) -> bool:
        return self.context.is_training_loop(loop) or self.context.iterates_dataloader(loop)

    def _report(self, candidate: _Candidate, scalar: bool) -> None:
        if not scalar:
            self.report(candidate.node)
            return
        value = candidate.value
        with_item = cst.Call(func=cst.Attribute(value=value, attr=cst.Name("item")))
        if isinstance(candidate.node, cst.AugAssign):
            self.report(candidate.node, replacement=candidate.node.with_changes(value=with_item))
        else:
            self.report(candidate.node, replacement=with_item, replace_target=value)


def _looks_like_loss(value: cst.BaseExpression) -> bool:
    return isinstance(value, cst.Name) and "loss" in value.value.lower()
