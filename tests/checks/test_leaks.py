from __future__ import annotations

import re
from typing import Any

import pytest
import torch
from torch import nn

from torchcheck import CheckFailed, assert_no_graph_leak

from ._helpers import process_state_unchanged


class Trainer:
    def __init__(self, keep: str = "item") -> None:
        torch.manual_seed(0)
        self.model = nn.Linear(4, 2)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.x = torch.randn(8, 4)
        self.keep = keep
        self.history: list[Any] = []
        self.total: Any = 0.0
        self.cache: list[torch.Tensor] = []

    def step(self) -> None:
        self.optimizer.zero_grad()
        out = self.model(self.x)
        loss = out.pow(2).mean()
        loss.backward()
        self.optimizer.step()
        if self.keep == "item":
            self.history.append(loss.item())
        elif self.keep == "tensor":
            self.history.append(loss)  # bug: keeps every loss with its graph
        elif self.keep == "sum":
            self.total += loss  # bug: one tensor whose graph grows every step
        elif self.keep == "cache":
            self.cache.append(torch.tanh(self.model(self.x)))  # bug: cached activations with graph


def test_no_graph_leak_passes_a_step_that_keeps_loss_item() -> None:
    trainer = Trainer("item")
    with process_state_unchanged():
        assert_no_graph_leak(trainer.step)


def test_no_graph_leak_catches_losses_kept_with_their_graph() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_no_graph_leak(Trainer("tensor").step, steps=3)
    message = str(failure.value)
    assert "Trainer.step() leaves more autograd state alive after every step (3 steps" in message
    # One more each step; tensors with history that earlier tests left alive may add a constant.
    counts = re.search(r"live tensors with grad_fn: (\d+), (\d+), (\d+)", message)
    assert counts is not None, message
    first, second, third = map(int, counts.groups())
    assert (second - first, third - second) == (1, 1)
    assert "New tensors with history since the previous step: 1 x () MeanBackward0" in message


def test_no_graph_leak_catches_a_running_total_that_grows_its_graph() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_no_graph_leak(Trainer("sum").step, steps=3)
    assert "autograd graph nodes reachable from them:" in str(failure.value)
    assert "live tensors with grad_fn" not in str(failure.value)


def test_no_graph_leak_counts_saved_tensors_of_a_growing_cache() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_no_graph_leak(Trainer("cache").step, steps=3)
    assert "bytes held by saved-for-backward tensors: 384, 576, 768" in str(failure.value)


def _keep(tensor: torch.Tensor) -> torch.Tensor:
    return tensor


class ForgetsItsHook:
    """A step that pushes a saved-tensors hook on its first call and never pops it."""

    def __init__(self) -> None:
        self.model = nn.Linear(4, 4)
        self.pushed = False

    def step(self) -> None:
        if not self.pushed:
            torch.autograd.graph.saved_tensors_hooks(_keep, _keep).__enter__()
            self.pushed = True
        self.model(torch.randn(2, 4)).sum().backward()


def _saved_tensors_hooks_top() -> tuple | None:
    return torch._C._autograd._top_saved_tensors_default_hooks(False)


def test_no_graph_leak_names_a_saved_tensors_hook_the_step_leaves_pushed_and_removes_every_hook() -> None:
    try:
        with pytest.raises(CheckFailed) as failure:
            assert_no_graph_leak(ForgetsItsHook().step, steps=2)
        left_installed = _saved_tensors_hooks_top()
    finally:
        while _saved_tensors_hooks_top() is not None:  # whatever a broken check left
            torch._C._autograd._pop_saved_tensors_default_hooks()
    assert left_installed is None
    message = str(failure.value)
    assert "ForgetsItsHook.step() pushes saved-tensors hooks and leaves them installed" in message
    assert "(_keep/_keep after 3 calls)" in message


def test_no_graph_leak_keeps_a_saved_tensors_hook_the_caller_pushed_around_it() -> None:
    trainer = Trainer("item")
    with torch.autograd.graph.saved_tensors_hooks(_keep, _keep):
        assert_no_graph_leak(trainer.step, steps=2)
        assert _saved_tensors_hooks_top() == (_keep, _keep)
    assert _saved_tensors_hooks_top() is None


class RecurrentState:
    """A stateful RNN whose hidden state is computed with history and carried to the
    next call detached, never backpropagated (inference with a recurrent state)."""

    def __init__(self, detach: bool) -> None:
        torch.manual_seed(0)
        self.cell = nn.GRUCell(8, 8)
        self.state = torch.zeros(2, 8)
        self.detach = detach

    def step(self) -> None:
        previous = self.state.detach() if self.detach else self.state
        self.state = self.cell(torch.randn(2, 8), previous)


def test_no_graph_leak_passes_a_recurrent_state_with_history_that_is_never_backpropagated() -> None:
    assert_no_graph_leak(RecurrentState(detach=True).step, steps=3)


def test_no_graph_leak_still_catches_a_recurrent_state_carried_with_its_graph() -> None:
    with pytest.raises(CheckFailed, match="autograd graph nodes reachable from them"):
        assert_no_graph_leak(RecurrentState(detach=False).step, steps=3)
