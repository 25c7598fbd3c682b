from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from torchcheck.lint import torch_api
from torchcheck.lint.context import LintContext, Loop
from torchcheck.lint.flow import Event
from torchcheck.lint.idioms import Effect
from torchcheck.lint.kinds import Kind
from torchcheck.lint.modes import CHOSEN, covers, mode_set_by, modes_left_by, uses_gradients
from torchcheck.lint.nodes import decorator_names, dotted_name, method_call
from torchcheck.lint.rule import Invalid, Rule, Valid
from torchcheck.lint.summaries import EVAL, FunctionSummary

_MESSAGE = (
    "Evaluation loop runs `{module}` (switched to `eval()` at line {line}) without `torch.no_grad()`: "
    "every forward pass records an autograd graph that is never used"
)
# `torch.set_grad_enabled(False)` as a statement turns gradients off for the rest of the thread.
_GRAD_SWITCHES = torch_api.SET_GRAD_ENABLED | torch_api.INFERENCE_MODE | torch_api.NO_GRAD_CONTEXTS


@dataclass(frozen=True)
class _Switch:
    event: Event
    target: str
    to_eval: bool


@dataclass(frozen=True)
class _Forward:
    event: Event
    module: str


@dataclass
class _FunctionFacts:
    switches: list[_Switch] = field(default_factory=list)
    forwards: list[_Forward] = field(default_factory=list)  # module calls with gradients on, in loops
    grad_switched: bool = False  # calls `torch.set_grad_enabled(...)`, or has a project's no-grad decorator
    called_without_grad: bool = False  # a caller in this file runs it under no_grad


class EvaluationWithoutNoGrad(Rule):
    """
    ## What it does
    Checks for evaluation loops - loops after `model.eval()` that call the model and never
    backpropagate - that run with gradient tracking on, outside `torch.no_grad()` or
    `torch.inference_mode()`.

    ## Why is this bad?
    `model.eval()` changes how dropout and batch norm behave; it does not stop autograd.
    Every forward pass in the loop still records the graph and keeps the activations it
    needs for a backward pass that never comes: evaluation takes more memory than training
    (often enough to run out of GPU memory on the first validation), runs slower, and any
    output kept across iterations keeps its whole graph alive. Wrap the loop in
    `with torch.no_grad():` (or `torch.inference_mode()`), or decorate the function.

    A loop that asks for gradients anyway (`backward()`, `torch.autograd.grad`,
    `requires_grad_()`, `torch.enable_grad()`: saliency maps, adversarial examples) is not
    reported, nor is a function that a caller in the same file runs under `no_grad`, or that
    a project's own wrapper of them decorates (`@smart_inference_mode()`: a decorator whose
    name contains `no_grad` or `inference_mode`).

    The rule is opt-in: the graph costs memory and time, not correctness, and a caller in
    another file may already disable gradients.

    ## Example
    ```python
    def validate(model, loader, criterion):
        model.eval()
        total = 0.0
        for images, labels in loader:
            total += criterion(model(images), labels).item()
        return total / len(loader)
    ```

    Use instead:
    ```python
    import torch

    @torch.no_grad()
    def validate(model, loader, criterion):
        model.eval()
        total = 0.0
        for images, labels in loader:
            total += criterion(model(images), labels).item()
        return total / len(loader)
    ```

    ## Fix safety
    There is no automatic fix: whether to wrap the loop, the function or its caller is the
    author's choice.

    ## References
    - [Out of memory during validation: add `with torch.no_grad()` around the forward pass (hszhao/semseg#60)](https://github.com/hszhao/semseg/issues/60)
    - [CUDA out of memory in `validate()` until it runs under `torch.no_grad()` (sgrvinod/a-PyTorch-Tutorial-to-Image-Captioning#57)](https://github.com/sgrvinod/a-PyTorch-Tutorial-to-Image-Captioning/issues/57)
    - [Autograd mechanics: locally disabling gradient computation](https://pytorch.org/docs/stable/notes/autograd.html#locally-disabling-gradient-computation)
    """

    code = "TCK113"
    name = "evaluation-without-no-grad"
    message = "Evaluation loop runs the model without `torch.no_grad()`; every forward pass records an unused graph"
    default_enabled = False
    required_text = (".eval()", ".train(False)")

    VALID = (
        Valid(
            """
import torch

def validate(model, loader, criterion):
    model.eval()
    total = 0.0
    with torch.no_grad():
        for images, labels in loader:
            total += criterion(model(images), labels).item()
    return total / len(loader)
"""
        ),
        Valid(
            """
import torch

@torch.inference_mode()
def predict(model, loader):
    model.eval()
    return [model(images).argmax(1) for images in loader]
"""
        ),
        Valid(
            """
def saliency(model, loader):
    model.eval()
    maps = []
    for images, labels in loader:
        images.requires_grad_()
        model(images).gather(1, labels[:, None]).sum().backward()
        maps.append(images.grad.abs())
    return maps
"""
        ),
        Valid(
            """
import torch

def evaluate(model, loader):
    model.eval()
    for images, labels in loader:
        yield model(images), labels

def main(model, loader):
    with torch.no_grad():
        for outputs, labels in evaluate(model, loader):
            print(outputs.argmax(1).eq(labels).float().mean())
"""
        ),
        Valid(
            """
def finetune_head(backbone, head, loader, optimizer):
    backbone.eval()
    for images, labels in loader:
        features = backbone(images)
        optimizer.zero_grad()
        criterion(head(features.detach()), labels).backward()
        optimizer.step()
"""
        ),
        Valid(
            """
from utils.torch_utils import smart_inference_mode

@smart_inference_mode()
def run(model, loader):
    model.eval()
    return [model(images) for images in loader]
"""
        ),
        Valid(
            """
def count_trainable(model, loader):
    model.eval()
    for name, parameter in model.named_parameters():
        print(name, parameter.requires_grad)
"""
        ),
        Valid(
            """
import torch

def run_validation(model, loader):
    model.eval()
    torch.set_grad_enabled(False)
    for images, labels in loader:
        print(model(images).argmax(1).eq(labels).sum())
    torch.set_grad_enabled(True)
"""
        ),
    )
    INVALID = (
        Invalid(
            """
def validate(model, loader, criterion):
    model.eval()
    total = 0.0
    for images, labels in loader:  # TCK113
        total += criterion(model(images), labels).item()
    return total / len(loader)
"""
        ),
        Invalid(
            """
import torch

model = torch.load("model.pt", weights_only=False)
model.eval()
predictions = []
for batch in test_loader:  # TCK113
    predictions.append(model(batch).argmax(1))
"""
        ),
        Invalid(
            """
class Trainer:
    def evaluate(self):
        self.model.eval()
        scores = []
        for step, batch in enumerate(self.val_loader):  # TCK113
            scores.append(self.model(batch).mean().item())
        self.model.train()
        return scores
"""
        ),
    )

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._functions: dict[cst.FunctionDef | None, _FunctionFacts] = {None: _FunctionFacts()}
        self._gradient_loops: set[Loop] = set()

    def _here(self) -> _FunctionFacts:
        return self._functions.setdefault(self.context.flow.function, _FunctionFacts())

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        # a project's own wrapper of `torch.no_grad`, known by its name: `@smart_inference_mode()`, `@utils.no_grad_if_eval`
        if any("no_grad" in name.lower() or "inference_mode" in name.lower() for name in decorator_names(node)):
            self._here().grad_switched = True

    def visit_Call(self, node: cst.Call) -> None:
        summary, mode = self.context.call_summary(node), mode_set_by(node)
        if summary is not None:
            self._helper(node, summary)
        elif self.context.call_name(node) in _GRAD_SWITCHES:
            self._here().grad_switched = True
        elif mode is not None:
            target = dotted_name(node.func.value)  # type: ignore[attr-defined]
            if target is not None and mode != CHOSEN:
                self._here().switches.append(_Switch(self.context.flow.event(node), target, mode == EVAL))
        elif uses_gradients(self.context, node):
            self._gradient_loops.update(self.context.loops)
        elif self.context.loops and not self.context.grad_maybe_disabled:
            found = method_call(node)
            self._forward(node, found[0] if found is not None and found[1] == "forward" else node.func)

    def _helper(self, call: cst.Call, summary: FunctionSummary) -> None:
        if summary.does(Effect.BACKWARD):
            self._gradient_loops.update(self.context.loops)
        for target, mode in modes_left_by(summary):
            self._here().switches.append(_Switch(self.context.flow.event(call), target, mode == EVAL))
        resolved = self.context.resolve_call(call)
        if resolved is not None and self.context.grad_maybe_disabled:
            self._functions.setdefault(resolved.function, _FunctionFacts()).called_without_grad = True

    def _forward(self, call: cst.Call, callee: cst.BaseExpression) -> None:
        module = dotted_name(callee)
        if module is not None and self.context.kind_of(callee) is Kind.MODULE:
            self._here().forwards.append(_Forward(self.context.flow.event(call), module))

    def leave_Module(self, node: cst.Module) -> None:
        for facts in self._functions.values():
            if facts.grad_switched or facts.called_without_grad:
                continue
            reported: set[Loop] = set()
            for forward in facts.forwards:
                loop = forward.event.loops[0]
                if loop in reported or loop in self._gradient_loops or self.context.is_training_loop(loop):
                    continue
                switch = self._eval_before(facts, forward)
                if switch is not None:
                    self.report(loop, _MESSAGE.format(module=forward.module, line=self.context.line_of(switch.event.node)))
                    reported.add(loop)

    @staticmethod
    def _eval_before(facts: _FunctionFacts, forward: _Forward) -> _Switch | None:
        """The ``eval()`` that last switched the called module before the call, if the last
        switch was one."""
        before = [
            switch
            for switch in facts.switches
            if switch.event.order < forward.event.order and covers(switch.target, forward.module)
        ]
        if not before:
            return None
        last = max(before, key=lambda switch: switch.event.order)
        return last if last.to_eval else None
