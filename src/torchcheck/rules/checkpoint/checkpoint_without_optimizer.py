from __future__ import annotations

import functools
import operator
from dataclasses import dataclass

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.kinds import Kind
from torchcheck.lint.nodes import method_call
from torchcheck.lint.rule import Invalid, Rule, Valid
from torchcheck.lint.save_sites import TORCH_SAVE, string_value
from torchcheck.rules.checkpoint._common import saved_object


@dataclass(frozen=True)
class _Checkpoint:
    """What a checkpoint dictionary is known to hold."""

    model_state: bool = False  # a module's state_dict()
    other_state: bool = False  # anything that may be optimizer state
    unknown: bool = False  # filled in ways the rule cannot follow

    def __or__(self, other: _Checkpoint) -> _Checkpoint:
        return _Checkpoint(self.model_state or other.model_state, self.other_state or other.other_state, self.unknown or other.unknown)


_UNKNOWN = _Checkpoint(unknown=True)


def _mentions_optimizer(name: str) -> bool:
    lowered = name.lower()
    return "optim" in lowered or lowered in ("opt", "opts") or lowered.startswith("opt_")


def _last_name(expression: cst.BaseExpression) -> str | None:
    if isinstance(expression, cst.Name):
        return expression.value
    if isinstance(expression, cst.Attribute):
        return expression.attr.value
    return None


def _subscript_key(target: cst.Subscript) -> str | None:
    index = target.slice[0].slice if len(target.slice) == 1 else None
    return string_value(index.value) if isinstance(index, cst.Index) else None


class CheckpointWithoutOptimizer(Rule):
    """
    ## What it does
    Checks for checkpoint dictionaries saved with `torch.save` that hold a model's
    `state_dict()` but no optimizer state, in files that train with an optimizer.

    ## Why is this bad?
    A checkpoint written during training is usually meant to resume training. Without
    `optimizer.state_dict()` the resumed run starts with empty momentum buffers and Adam
    moment estimates (and, with a scheduler, the wrong learning rate): the loss jumps
    after every restart and results differ from an uninterrupted run. Save the optimizer
    (and scheduler and GradScaler) state next to the model's.

    ## Example
    ```python
    import torch

    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        torch.save({"epoch": epoch, "model": model.state_dict()}, "checkpoint.pt")
    ```

    Use instead:
    ```python
    import torch

    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        torch.save(
            {"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()},
            "checkpoint.pt",
        )
    ```

    ## Fix safety
    There is no automatic fix: the rule cannot know which optimizer, scheduler or scaler
    the checkpoint should hold. Checkpoints meant only for inference are better saved as
    `torch.save(model.state_dict(), path)`, which this rule does not report.

    ## References
    - [Saving and loading a general checkpoint for inference and/or resuming training](https://pytorch.org/tutorials/beginner/saving_loading_models.html#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training)
    - [`torch.optim.Optimizer.state_dict`](https://pytorch.org/docs/stable/generated/torch.optim.Optimizer.state_dict.html)
    """

    code = "TCK404"
    name = "checkpoint-without-optimizer"
    message = "Checkpoint saves the model's `state_dict()` but not the optimizer's; resuming resets the optimizer state"
    default_enabled = False
    required_text = ("save",)  # it reports `torch.save` calls only

    VALID = (
        Valid(
            """
import torch
optimizer = torch.optim.AdamW(model.parameters())
torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}, path)
"""
        ),
        Valid(
            """
import torch
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
torch.save(model.state_dict(), "weights.pt")
"""
        ),
        Valid(
            """
import torch
def save_checkpoint(model, optimizer, path):
    checkpoint = {"model": model.state_dict()}
    checkpoint["optimizer"] = optimizer.state_dict()
    torch.save(checkpoint, path)
"""
        ),
        Valid(
            """
import torch
torch.save({"model": model.state_dict(), "config": config}, "export.pt")
"""
        ),
        Valid(
            """
import torch
opt = torch.optim.Adam(model.parameters())
state = {"model": model.state_dict(), **extra_state}
torch.save(state, path)
torch.save({"model": model.state_dict(), "opt_state": opt_state}, path)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
import torch
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
for epoch in range(10):
    train_one_epoch(model, optimizer)
    torch.save({"epoch": epoch, "model": model.state_dict()}, f"ckpt_{epoch}.pt")  # TCK404
"""
        ),
        Invalid(
            """
import torch

class Trainer:
    def save(self, path):
        checkpoint = {"state_dict": self.model.state_dict(), "step": self.step}
        checkpoint["best_metric"] = self.best
        torch.save(checkpoint, path)  # TCK404

    def train_step(self, loss):
        loss.backward()
        self.optimizer.step()
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        # What each `name = {...}` and `name[key] = value` assignment adds, known when it runs.
        self._dictionaries: dict[cst.Assign, _Checkpoint] = {}
        self._entries: dict[cst.Subscript, _Checkpoint] = {}
        self._candidates: list[cst.Call] = []
        self._uses_optimizer = False

    def visit_Assign(self, node: cst.Assign) -> None:
        facts = self._dictionary(node.value)
        if facts is not None:
            self._dictionaries[node] = facts
        for target in node.targets:
            if isinstance(target.target, cst.Subscript) and isinstance(target.target.value, cst.Name):
                self._entries[target.target] = self._entry(_subscript_key(target.target), node.value)

    def visit_Call(self, node: cst.Call) -> None:
        if not self._uses_optimizer:
            stepped = method_call(node)  # `optimizer.step()`
            stepped_optimizer = stepped is not None and stepped[1] == "step" and self.context.kind_of(stepped[0]) is Kind.OPTIMIZER
            self._uses_optimizer = stepped_optimizer or self.context.kind_of(node) is Kind.OPTIMIZER
        if node.args and self.context.call_name(node) in TORCH_SAVE:
            saved = saved_object(node)
            facts = self._filled(saved) if isinstance(saved, cst.Name) else self._dictionary(saved)
            if facts is not None and facts.model_state and not facts.other_state and not facts.unknown:
                self._candidates.append(node)

    def leave_Module(self, node: cst.Module) -> None:
        if self._uses_optimizer:
            for call in self._candidates:
                self.report(call)

    def _filled(self, saved: cst.Name) -> _Checkpoint | None:
        """What the dictionary ``saved`` names holds when it is saved: its last plain
        assignment before the save in the same function, if a ``{...}``/``dict(...)``,
        with the ``saved[key] = value`` entries added since; any other method called on
        it since (``.update(...)``, ``.setdefault(...)``) fills it in unknown ways."""
        binder = self.context.binder
        function = binder.enclosing(saved, cst.FunctionDef)

        def here(node: cst.CSTNode) -> bool:
            return binder.enclosing(node, cst.FunctionDef) is function

        assigned = [
            binding
            for binding in binder.bindings_of(saved.value, binder.scope_of(saved))
            if isinstance(binding.node, cst.Assign)
            and any(target.target is binding.target for target in binding.node.targets)
            and here(binding.node)
            and binder.precedes(binding.node, saved)
        ]
        last = max(assigned, key=lambda binding: binding.order, default=None)
        facts = self._dictionaries.get(last.node) if last is not None else None
        if last is None or facts is None:
            return None
        for use in last.references:
            if here(use) and binder.precedes(last.node, use) and binder.precedes(use, saved):
                parent = binder.parent(use)
                if isinstance(parent, cst.Subscript) and parent in self._entries:  # `saved[key] = value`
                    facts |= self._entries[parent]
                elif isinstance(parent, cst.Attribute) and parent.attr.value != "get" and isinstance(binder.parent(parent), cst.Call):
                    facts |= _UNKNOWN  # .update(...), .setdefault(...)
        return facts

    def _dictionary(self, expression: cst.BaseExpression | None) -> _Checkpoint | None:
        """Facts about a ``{...}`` or ``dict(...)`` expression, or None if it is neither."""
        if isinstance(expression, cst.Dict):
            entries = [
                self._entry(string_value(element.key), element.value) if isinstance(element, cst.DictElement) else _UNKNOWN
                for element in expression.elements
            ]
        elif isinstance(expression, cst.Call) and isinstance(expression.func, cst.Name) and expression.func.value == "dict":
            entries = [
                self._entry(argument.keyword.value, argument.value) if argument.keyword is not None else _UNKNOWN
                for argument in expression.args
            ]
        else:
            return None
        return functools.reduce(operator.or_, entries, _Checkpoint())

    def _entry(self, key: str | None, value: cst.BaseExpression) -> _Checkpoint:
        """What one entry ``key: value`` adds to a checkpoint."""
        if key is None or _mentions_optimizer(key):
            return _Checkpoint(other_state=True)
        receiver_method = method_call(value)
        if receiver_method is not None and receiver_method[1] == "state_dict":
            model = self._is_model(receiver_method[0])
            return _Checkpoint(model_state=model, other_state=not model)
        name = _last_name(value)
        return _Checkpoint(other_state=name is not None and _mentions_optimizer(name))

    def _is_model(self, receiver: cst.BaseExpression) -> bool:
        if isinstance(receiver, cst.Attribute) and receiver.attr.value == "module":
            receiver = receiver.value  # DistributedDataParallel's wrapped model
        return self.context.kind_of(receiver) is Kind.MODULE
