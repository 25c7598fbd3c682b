"""The "Where it starts" section of assert_accumulation_equivalent and assert_compile_parity:
a planted bug is named at its module (and, for accumulation, its operation and line)."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from torchcheck import CheckFailed, assert_accumulation_equivalent, assert_compile_parity

Batch = tuple[torch.Tensor, torch.Tensor]


@pytest.fixture(autouse=True)
def _no_localize_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TORCHCHECK_LOCALIZE", raising=False)


def _line_of(module: type[nn.Module], marker: str) -> str:
    lines, start = inspect.getsourcelines(module.forward)
    return f"{__file__}:{start + next(i for i, text in enumerate(lines) if text.rstrip().endswith(f'# {marker}'))}"


def _batch(size: int = 8) -> Batch:
    generator = torch.Generator().manual_seed(0)
    return torch.randn(size, 4, generator=generator), torch.randn(size, 1, generator=generator)


def _sgd(model: nn.Module) -> torch.optim.Optimizer:
    return torch.optim.SGD(model.parameters(), lr=0.1)


# ------------------------------------------------------------- accumulation


class CenterBatch(nn.Module):
    """Centres every sample on the mean of the batch it is given: a micro-batch's mean
    is not the whole batch's."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x - x.mean(0, keepdim=True)  # CENTER_LINE


def _centred_mlp() -> nn.Module:
    return nn.Sequential(nn.Linear(4, 16), nn.Tanh(), CenterBatch(), nn.Linear(16, 1))


def _mlp() -> nn.Module:
    return nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))


def _accumulating(model: nn.Module, optimizer: torch.optim.Optimizer, micro_batches: list[Batch], steps: int) -> None:
    optimizer.zero_grad()
    for x, y in micro_batches:
        (F.mse_loss(model(x), y) / steps).backward()
    optimizer.step()


def _undivided(model: nn.Module, optimizer: torch.optim.Optimizer, micro_batches: list[Batch], steps: int) -> None:
    optimizer.zero_grad()
    for x, y in micro_batches:
        F.mse_loss(model(x), y).backward()
    optimizer.step()


def _twice_per_micro_batch(
    model: nn.Module, optimizer: torch.optim.Optimizer, micro_batches: list[Batch], steps: int
) -> None:
    optimizer.zero_grad()
    for x, y in micro_batches:
        (F.mse_loss(model(x), y) / steps).backward()
        if steps == 1:
            model(x)  # bug: an extra forward in the whole-batch run only
    optimizer.step()
    with torch.no_grad():
        next(model.parameters()).mul_(1.0 + 0.01 * steps)


def _accumulation_failure(make_model: Any, train_fn: Any, **options: Any) -> str:
    with pytest.raises(CheckFailed) as failure:
        assert_accumulation_equivalent(make_model, _sgd, train_fn, _batch(), accumulation_steps=2, **options)
    return str(failure.value)


def test_accumulation_names_the_module_op_and_line_that_treat_a_micro_batch_differently() -> None:
    message = _accumulation_failure(_centred_mlp, _accumulating)

    assert "Where it starts (forward): module '2' (CenterBatch), call 1 of 1: inputs agree, output differs" in message
    assert f"First differing op: aten.sub.Tensor at {_line_of(CenterBatch, 'CENTER_LINE')}" in message
    assert "Compared: micro-batch 1 of 2 with rows 0:4 of the whole batch's forward" in message


def test_accumulation_says_the_forward_agrees_when_the_loop_is_at_fault() -> None:
    message = _accumulation_failure(_mlp, _undivided)

    assert "Cause: the loss is not divided by accumulation_steps." in message
    assert "Where it starts: not in the forward pass: every module's output on each micro-batch equals" in message


def test_accumulation_says_why_it_does_not_localise_runs_with_different_module_calls() -> None:
    message = _accumulation_failure(_mlp, _twice_per_micro_batch)

    assert (
        "Where it starts: not looked for: module '0' runs 2 times over the 2 micro-batches and 2 times "
        "over the whole batch, so its calls cannot be paired with rows of the batch." in message
    )


def test_accumulation_localises_at_module_level_or_not_at_all_as_asked() -> None:
    message = _accumulation_failure(_centred_mlp, _accumulating, localize="module")
    assert "module '2' (CenterBatch)" in message
    assert "First differing op" not in message
    assert "Where it starts" not in _accumulation_failure(_centred_mlp, _accumulating, localize="off")


# ------------------------------------------------------------- compile parity


class GeluNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Linear(4, 16)
        self.norm = nn.LayerNorm(16)
        self.act = nn.GELU()
        self.head = nn.Linear(16, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.act(self.norm(self.encoder(x))))


def gelu_as_relu_backend(gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]) -> Any:
    """A backend bug: it compiles GELU as ReLU."""
    for node in gm.graph.nodes:
        if node.op == "call_function" and "gelu" in str(node.target):
            node.target, node.kwargs = torch.relu, {}
    gm.recompile()
    return gm.forward


def _train_step(model: nn.Module, optimizer: torch.optim.Optimizer, batch: Batch) -> torch.Tensor:
    x, y = batch
    optimizer.zero_grad()
    loss = F.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    return loss


def _compile_failure(**options: Any) -> str:
    with pytest.raises(CheckFailed) as failure:
        assert_compile_parity(GeluNet, _sgd, _train_step, [_batch(4)], backend=gelu_as_relu_backend, **options)
    return str(failure.value)


def test_compile_parity_names_the_first_module_whose_compiled_forward_differs() -> None:
    # about 5 s: the backend ladder and module bisection that follow compile a dozen times
    message = _compile_failure()

    assert "Where it starts (forward): module 'act' (GELU), call 1 of 1: inputs agree, output differs" in message
    assert "Op level is not possible under torch.compile" in message
    assert message.index("module 'act' (GELU)") < message.index("the backend ladder")


def test_compile_parity_localisation_can_be_switched_off() -> None:
    message = _compile_failure(localize="off")

    assert "diverges from eager at step 1 of 1" in message
    assert "Where it starts" not in message
