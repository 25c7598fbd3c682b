"""assert_batch_independent on a model that computes NaN or Inf names the non-finite
values, as assert_gradients_flow does, instead of blaming a mixed batch dimension."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from torchcheck import CheckFailed, assert_batch_independent, assert_gradients_flow

NONFINITE_OUTPUT = "non-finite output (NaN/Inf) -- overflow, log/sqrt/division at 0"
NONFINITE_GRADIENT = "non-finite gradient (NaN/Inf) -- overflow, log/sqrt/division at 0"


class Overflows(nn.Module):
    """Per-sample, but every output is infinite."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x) * float("inf")


class SquareRoot(nn.Module):
    """Per-sample with finite outputs, but d sqrt(x) / dx is infinite at 0."""

    def __init__(self) -> None:
        super().__init__()
        self.scale = nn.Parameter(torch.ones(4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sqrt(x * self.scale)


class OverflowingTokens(nn.Module):
    """Per-sample over integer token ids, but every output is NaN."""

    def __init__(self) -> None:
        super().__init__()
        self.embedding = nn.Embedding(10, 3)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.embedding(tokens) * float("nan")


def _failure_of(model: nn.Module, inputs: torch.Tensor) -> str:
    with pytest.raises(CheckFailed) as failure:
        assert_batch_independent(model, inputs)
    return str(failure.value)


def test_batch_independent_names_infinite_outputs_instead_of_mixed_samples() -> None:
    message = _failure_of(Overflows(), torch.randn(4, 4))
    assert message.startswith("assert_batch_independent: in eval mode, Overflows computes NaN/Inf")
    assert NONFINITE_OUTPUT in message
    assert "output 0: 0 NaN, 12 Inf of 12 elements" in message
    assert "mix" not in message.replace("whether it mixes samples", "")
    assert "x.view" not in message


def test_batch_independent_names_non_finite_gradients_of_finite_outputs() -> None:
    inputs = torch.zeros(3, 4)
    message = _failure_of(SquareRoot(), inputs)
    assert NONFINITE_GRADIENT in message
    assert "d out[0] / d input[0]:" in message
    assert "x.view" not in message


def test_batch_independent_names_non_finite_outputs_of_integer_inputs() -> None:
    message = _failure_of(OverflowingTokens(), torch.randint(0, 10, (3, 5)))
    assert NONFINITE_OUTPUT in message
    assert "output 0: 45 NaN, 0 Inf of 45 elements" in message


def test_batch_independent_and_gradients_flow_name_non_finite_gradients_alike() -> None:
    with pytest.raises(CheckFailed) as flow:
        assert_gradients_flow(SquareRoot(), torch.zeros(3, 4))
    assert NONFINITE_GRADIENT in str(flow.value)
