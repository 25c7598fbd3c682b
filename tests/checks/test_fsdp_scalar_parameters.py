"""FSDP2 (fully_shard) cannot shard 0-dim parameters (CLIP's ``logit_scale``): the
distributed checks say so before starting ranks, instead of failing on a raw error."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from torchcheck import (
    NotApplicable,
    assert_data_parallel_equivalent,
    assert_sharded_checkpoint_roundtrip,
)


class WithTemperature(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(6, 3)
        self.logit_scale = nn.Parameter(torch.tensor(2.0))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x) * self.logit_scale.exp()


def adamw(model: nn.Module) -> torch.optim.Optimizer:
    return torch.optim.AdamW(model.parameters(), lr=1e-2)


def train_step(model: nn.Module, optimizer: torch.optim.Optimizer, batch: tuple[torch.Tensor, torch.Tensor]) -> None:
    optimizer.zero_grad()
    F.cross_entropy(model(batch[0]), batch[1]).backward()
    optimizer.step()


def test_a_scalar_parameter_makes_the_fsdp_checkpoint_check_not_applicable_and_is_named() -> None:
    with pytest.raises(NotApplicable) as skipped:
        assert_sharded_checkpoint_roundtrip(WithTemperature, adamw)
    message = str(skipped.value)
    assert "0-dim (scalar) parameters: 'logit_scale'" in message
    assert "shards every parameter along dim 0" in message
    assert 'strategy="ddp"' in message


def test_a_scalar_parameter_makes_fsdp_data_parallel_training_not_applicable() -> None:
    batch = (torch.randn(4, 6), torch.randint(0, 3, (4,)))
    with pytest.raises(NotApplicable, match="'logit_scale'"):
        assert_data_parallel_equivalent(WithTemperature(), adamw, train_step, [batch], strategy="fsdp")
