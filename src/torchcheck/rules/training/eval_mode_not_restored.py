from __future__ import annotations

import libcst as cst

from torchcheck.lint.context import LintContext, Loop, dotted_name
from torchcheck.lint.rule import Invalid, Valid
from torchcheck.rules.training._common import Event, FlowRule, receiver_text


def _sets_eval_mode(call: cst.Call) -> bool:
    """``m.train(False)`` / ``m.train(mode=False)`` switch to eval mode rather than back."""
    return bool(call.args) and isinstance(call.args[0].value, cst.Name) and call.args[0].value.value == "False"


class EvalModeNotRestored(FlowRule):
    """
    ## What it does
    Checks for training loops (loops that call `.backward()`) that switch a module to
    evaluation mode with `module.eval()` - typically to validate - but never call
    `.train()` inside the loop.

    ## Why is this bad?
    `eval()` turns dropout off and makes batch norm use (and stop updating) its running
    statistics. If the loop never switches back, every iteration after the first
    validation trains in evaluation mode: no dropout regularisation, frozen batch-norm
    statistics, and a model that quietly trains worse. Call `model.train()` at the start of
    each epoch (or right after validating).

    To stay precise, the rule reports only a module that the loop also runs with gradients
    enabled (so a frozen teacher network set to `eval()` and run under `torch.no_grad()` is
    not reported), and is silent when the loop calls any `.train()`, or when the `eval()` is
    followed by `break`/`return` (the last epoch).

    ## Example
    ```python
    model.train()
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        model.eval()
        validate(model)
    ```

    Use instead:
    ```python
    for epoch in range(epochs):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        model.eval()
        validate(model)
    ```

    ## Fix safety
    There is no automatic fix: where training mode should be restored depends on the loop.

    ## References
    - [`torch.nn.Module.eval`](https://pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.eval)
    - [`torch.nn.Module.train`](https://pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.train)
    - [Autograd mechanics: evaluation mode](https://pytorch.org/docs/stable/notes/autograd.html#evaluation-mode-nn-module-eval)
    """

    code = "TCK106"
    name = "eval-mode-not-restored"
    message = "Training loop calls `eval()` but never `train()`; later iterations train in evaluation mode"
    required_text = (".eval()",)

    VALID = (
        Valid(
            """
for epoch in range(epochs):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
    model.eval()
    validate(model)
"""
        ),
        Valid(
            """
import torch
for x, y in loader:
    teacher.eval()
    with torch.no_grad():
        soft = teacher(x)
    loss = distill(student(x), soft)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
"""
        ),
        Valid(
            """
for step, (x, y) in enumerate(loader):
    criterion(model(x), y).backward()
    optimizer.step()
    optimizer.zero_grad()
    if step % eval_every == 0:
        model.eval()
        evaluate(model)
        model.train()
"""
        ),
        Valid(
            """
for epoch in range(epochs):
    for x, y in loader:
        criterion(model(x), y).backward()
        optimizer.step()
        optimizer.zero_grad()
    if epoch == epochs - 1:
        model.eval()
        break
"""
        ),
        Valid(
            """
for epoch in range(epochs):
    train_one_epoch(model, loader)
    model.eval()
    validate(model)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
model.train()
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
    model.eval()  # TCK106
    validate(model)
"""
        ),
        Invalid(
            """
import torch
class Trainer:
    def fit(self):
        self.model.train()
        for step, batch in enumerate(self.train_loader):
            loss = self.model(batch).mean()
            loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad()
            if step % 500 == 0:
                self.model.eval()  # TCK106
                with torch.no_grad():
                    self.validate()
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._evals: list[tuple[Event, str]] = []
        self._trained: set[Loop] = set()
        self._run_with_grad: dict[Loop, set[str]] = {}

    def visit_Call(self, node: cst.Call) -> None:
        loops = self.context.loops
        if not loops or not isinstance(node.func, (cst.Attribute, cst.Name)):
            return
        method = node.func.attr.value if isinstance(node.func, cst.Attribute) else None
        if method == "eval" and not node.args:
            receiver = receiver_text(node)
            if receiver is not None:
                self._evals.append((self.event(node), receiver))
        elif method == "train" and not _sets_eval_mode(node):
            self._trained.update(loops)
        elif not self.context.grad_maybe_disabled:
            callee = dotted_name(node.func.value if method == "forward" else node.func)  # type: ignore[union-attr]
            if callee is not None:
                for loop in loops:
                    self._run_with_grad.setdefault(loop, set()).add(callee)

    def leave_For(self, node: cst.For) -> None:
        self._resolve()

    def leave_While(self, node: cst.While) -> None:
        self._resolve()

    def _resolve(self) -> None:
        if len(self.context.loops) != 1:
            return  # an outer loop may still call train() further down
        for event, receiver in self._evals:
            if self._left_after(event):
                continue
            if any(self._never_restored(loop, receiver) for loop in event.loops):
                self.report(event.node)
        self._evals.clear()
        self._trained.clear()
        self._run_with_grad.clear()
        self.exits.clear()

    def _never_restored(self, loop: Loop, receiver: str) -> bool:
        return (
            self.context.is_training_loop(loop)
            and loop not in self._trained
            and receiver in self._run_with_grad.get(loop, ())
        )

    def _left_after(self, event: Event) -> bool:
        """A ``break``/``return``/``raise`` in the same block ends the loop after the eval."""
        return any(exit.order > event.order and exit.path == event.path for exit in self.exits)
