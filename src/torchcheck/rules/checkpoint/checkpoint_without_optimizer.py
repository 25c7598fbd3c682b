from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.kinds import Kind
from torchcheck.lint.nodes import method_call
from torchcheck.lint.rule import Invalid, Rule, Valid
from torchcheck.rules.checkpoint._common import TORCH_SAVE, saved_object


@dataclass
class _Checkpoint:
    """What a checkpoint dictionary is known to hold."""

    model_state: bool = False  # a module's state_dict()
    other_state: bool = False  # anything that may be optimizer state
    unknown: bool = False  # filled in ways the rule cannot follow


def _mentions_optimizer(name: str) -> bool:
    lowered = name.lower()
    return "optim" in lowered or lowered in ("opt", "opts") or lowered.startswith("opt_")


def _last_name(expression: cst.BaseExpression) -> str | None:
    if isinstance(expression, cst.Name):
        return expression.value
    if isinstance(expression, cst.Attribute):
        return expression.attr.value
    return None


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
        self._scopes: list[dict[str, _Checkpoint]] = [{}]
        self._candidates: list[cst.Call] = []
        self._uses_optimizer = False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._scopes.append({})

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._scopes.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        scope = self._scopes[-1]
        for target in node.targets:
            name = target.target
            if isinstance(name, cst.Name):
                facts = self._dictionary(node.value)
                if facts is None:
                    scope.pop(name.value, None)
                else:
                    scope[name.value] = facts
            elif isinstance(name, cst.Subscript) and isinstance(name.value, cst.Name) and name.value.value in scope:
                self._add_entry(scope[name.value.value], _subscript_key(name), node.value)

    def visit_Call(self, node: cst.Call) -> None:
        receiver_method = method_call(node)
        if receiver_method is not None:
            receiver, method = receiver_method
            if isinstance(receiver, cst.Name) and receiver.value in self._scopes[-1] and method != "get":
                self._scopes[-1][receiver.value].unknown = True  # .update(...), .setdefault(...)
            if method == "step" and self.context.kind_of(receiver) is Kind.OPTIMIZER:
                self._uses_optimizer = True
        if not self._uses_optimizer and self.context.kind_of(node) is Kind.OPTIMIZER:
            self._uses_optimizer = True
        if node.args and self.context.call_name(node) in TORCH_SAVE:
            saved = saved_object(node)
            facts = None
            if isinstance(saved, cst.Name):
                facts = self._scopes[-1].get(saved.value)
            elif saved is not None:
                facts = self._dictionary(saved)
            if facts is not None and facts.model_state and not facts.other_state and not facts.unknown:
                self._candidates.append(node)

    def leave_Module(self, node: cst.Module) -> None:
        if self._uses_optimizer:
            for call in self._candidates:
                self.report(call)
        self._candidates.clear()

    def _dictionary(self, expression: cst.BaseExpression) -> _Checkpoint | None:
        """Facts about a ``{...}`` or ``dict(...)`` expression, or None if it is neither."""
        if isinstance(expression, cst.Dict):
            facts = _Checkpoint()
            for element in expression.elements:
                if isinstance(element, cst.DictElement):
                    key = element.key.evaluated_value if isinstance(element.key, cst.SimpleString) else None
                    self._add_entry(facts, key if isinstance(key, str) else None, element.value)
                else:
                    facts.unknown = True
            return facts
        if isinstance(expression, cst.Call) and isinstance(expression.func, cst.Name) and expression.func.value == "dict":
            facts = _Checkpoint()
            for argument in expression.args:
                if argument.keyword is None:
                    facts.unknown = True
                else:
                    self._add_entry(facts, argument.keyword.value, argument.value)
            return facts
        return None

    def _add_entry(self, facts: _Checkpoint, key: str | None, value: cst.BaseExpression) -> None:
        if key is None or _mentions_optimizer(key):
            facts.other_state = True
            return
        receiver_method = method_call(value)
        if receiver_method is not None and receiver_method[1] == "state_dict":
            if self._is_model(receiver_method[0]):
                facts.model_state = True
            else:
                facts.other_state = True
            return
        name = _last_name(value)
        if name is not None and _mentions_optimizer(name):
            facts.other_state = True

    def _is_model(self, receiver: cst.BaseExpression) -> bool:
        if isinstance(receiver, cst.Attribute) and receiver.attr.value == "module":
            receiver = receiver.value  # DistributedDataParallel's wrapped model
        return self.context.kind_of(receiver) is Kind.MODULE


def _subscript_key(target: cst.Subscript) -> str | None:
    if len(target.slice) != 1 or not isinstance(target.slice[0].slice, cst.Index):
        return None
    key = target.slice[0].slice.value
    value = key.evaluated_value if isinstance(key, cst.SimpleString) else None
    return value if isinstance(value, str) else None
