"""lint/steps (what a ``.step()`` call steps) and lint/modes.uses_gradients, asked of the
context at each call of the walk."""

from __future__ import annotations

import textwrap

import libcst as cst

from torchcheck.lint.context import LintContext
from torchcheck.lint.kinds import Kind
from torchcheck.lint.modes import uses_gradients
from torchcheck.lint.nodes import source_text
from torchcheck.lint.steps import Step, step_of
from torchcheck.lint.walker import BatchedWalker


class _Calls:
    def __init__(self, context: LintContext) -> None:
        self.context = context
        self.steps: dict[str, Step | None] = {}
        self.gradients: dict[str, bool] = {}

    def visit_Call(self, node: cst.Call) -> None:
        self.steps[source_text(node)] = step_of(self.context, node)
        self.gradients[source_text(node)] = uses_gradients(self.context, node)


def _walk(code: str) -> _Calls:
    context = LintContext()
    calls = _Calls(context)
    BatchedWalker([context, calls]).walk(cst.parse_module(textwrap.dedent(code)))
    return calls


CODE = """
    import torch
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.cuda.amp.GradScaler()
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 10)
    optimizer.step()
    scaler.step(optimizer)
    optimizer.step(closure)
    scheduler.step()
    loss.backward()
    torch.autograd.grad(loss, inputs)
    model(x)
"""


def test_a_scaler_steps_the_optimizer_it_is_handed() -> None:
    steps = _walk(CODE).steps
    assert steps["optimizer.step()"] == Step("optimizer", Kind.OPTIMIZER, through_scaler=False, closure=False)
    assert steps["scaler.step(optimizer)"] == Step("optimizer", Kind.SCALER, through_scaler=True, closure=False)


def test_a_closure_and_a_scheduler_are_told_apart_and_other_calls_step_nothing() -> None:
    steps = _walk(CODE).steps
    assert steps["optimizer.step(closure)"] == Step("optimizer", Kind.OPTIMIZER, through_scaler=False, closure=True)
    assert steps["scheduler.step()"] == Step("scheduler", Kind.SCHEDULER, through_scaler=False, closure=False)
    assert steps["model(x)"] is None


def test_backward_and_autograd_grad_use_gradients_a_forward_pass_does_not() -> None:
    gradients = _walk(CODE).gradients
    assert gradients["loss.backward()"] and gradients["torch.autograd.grad(loss, inputs)"]
    assert not gradients["model(x)"] and not gradients["optimizer.step()"]
