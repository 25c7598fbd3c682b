from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from torchcheck import CheckFailed, assert_checkpoint_roundtrip, assert_resume_equivalent
from torchcheck.checks.checkpoint import load_checkpoint, save_checkpoint
from torchcheck.checks.state import preserved_state

from ._helpers import process_state_unchanged

# ---------------------------------------------------------------- roundtrip


class Scaled(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.register_buffer("scale", torch.rand(3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x) * self.scale


class PlainAttribute(Scaled):
    def __init__(self) -> None:
        super().__init__()
        del self.scale
        self.scale = torch.rand(3)  # bug: a plain attribute is not saved


class NonPersistent(Scaled):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("scale", torch.rand(3), persistent=False)  # bug: not saved, random


def drop_bias(module: nn.Module, state: dict[str, Any], prefix: str, local_metadata: Any) -> None:
    del state[prefix + "fc.bias"]  # bug: a hook that silently drops a key


class DropsKey(Scaled):
    def __init__(self) -> None:
        super().__init__()
        self._register_state_dict_hook(drop_bias)


class Tied(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(10, 4)
        self.head = nn.Linear(4, 10, bias=False)
        self.head.weight = self.embed.weight

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.head(self.embed(tokens))


def test_checkpoint_roundtrip_passes_buffers_and_tied_weights(tmp_path: Path) -> None:
    x = torch.randn(2, 4)
    with process_state_unchanged():
        assert_checkpoint_roundtrip(Scaled, x, tmp_path=tmp_path)
        assert_checkpoint_roundtrip(Tied, torch.tensor([[1, 2, 3]]))


def test_checkpoint_roundtrip_names_a_tensor_kept_as_a_plain_attribute() -> None:
    with process_state_unchanged(), pytest.raises(CheckFailed) as failure:
        assert_checkpoint_roundtrip(PlainAttribute, torch.ones(2, 4))
    message = str(failure.value)
    assert "plain tensor attribute 'scale' of PlainAttribute differs" in message
    assert "Mismatched elements: 3 / 3 (100.0%)" in message
    assert "self.register_buffer(name, tensor)" in message


def test_checkpoint_roundtrip_names_a_random_non_persistent_buffer() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_checkpoint_roundtrip(NonPersistent, torch.ones(2, 4))
    assert "non-persistent buffer 'scale' of NonPersistent differs" in str(failure.value)


def test_checkpoint_roundtrip_names_a_key_dropped_by_a_state_dict_hook() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_checkpoint_roundtrip(DropsKey, torch.ones(2, 4))
    assert 'Missing key(s) in state_dict: "fc.bias"' in str(failure.value)


# ------------------------------------------------------------------- resume


class Regressor(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.drop = nn.Dropout(0.3)
        self.fc2 = nn.Linear(8, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(self.drop(torch.relu(self.fc1(x))))


def make_optimizer(model: nn.Module) -> tuple[torch.optim.Optimizer, Any]:
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    return optimizer, torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)


def train_step(model: nn.Module, optimizer: torch.optim.Optimizer, batch: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
    x, y = batch
    model.train()
    optimizer.zero_grad()
    loss = F.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    return loss


def model_only_save(path: os.PathLike[str], model: nn.Module, optimizer: torch.optim.Optimizer, **_: Any) -> None:
    torch.save({"model": model.state_dict()}, path)  # bug: no optimizer, scheduler or RNG


def model_only_load(path: os.PathLike[str], model: nn.Module, optimizer: torch.optim.Optimizer, **_: Any) -> None:
    model.load_state_dict(torch.load(path, weights_only=True)["model"])


def no_rng_save(path: os.PathLike[str], model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any = None, **_: Any) -> None:
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict()}, path)


def no_rng_load(path: os.PathLike[str], model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any = None, **_: Any) -> None:
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])  # bug: dropout RNG not restored


def batches() -> list[tuple[torch.Tensor, torch.Tensor]]:
    generator = torch.Generator().manual_seed(1)
    return [(torch.randn(8, 4, generator=generator), torch.randn(8, 1, generator=generator)) for _ in range(6)]


def test_resume_equivalent_passes_with_the_default_checkpoint(tmp_path: Path) -> None:
    data = batches()
    with process_state_unchanged():
        assert_resume_equivalent(Regressor, make_optimizer, train_step, data, tmp_path=tmp_path)


def test_default_checkpoint_loads_with_weights_only(tmp_path: Path) -> None:
    model = Regressor()
    optimizer, scheduler = make_optimizer(model)
    train_step(model, optimizer, batches()[0])
    save_checkpoint(tmp_path / "c.pt", model, optimizer, scheduler)
    state = torch.load(tmp_path / "c.pt", weights_only=True)
    assert set(state) == {"model", "optimizer", "scheduler", "scaler", "rng"}
    assert set(state["rng"]) >= {"python", "numpy", "torch", "cuda"}


def test_default_checkpoint_restores_every_rng(tmp_path: Path) -> None:
    model = Regressor()
    optimizer, scheduler = make_optimizer(model)
    with preserved_state():
        save_checkpoint(tmp_path / "c.pt", model, optimizer, scheduler)
        expected = (random.random(), float(np.random.rand()), torch.rand(3))
        fresh = Regressor()
        load_checkpoint(tmp_path / "c.pt", fresh, *make_optimizer(fresh))
        actual = (random.random(), float(np.random.rand()), torch.rand(3))
    assert actual[:2] == expected[:2]
    assert torch.equal(actual[2], expected[2])


def test_resume_equivalent_names_the_step_when_optimizer_state_is_missing() -> None:
    with process_state_unchanged(), pytest.raises(CheckFailed) as failure:
        assert_resume_equivalent(
            Regressor, make_optimizer, train_step, batches(), save_fn=model_only_save, load_fn=model_only_load
        )
    message = str(failure.value)
    assert "resumed from a checkpoint after step 3 diverges from uninterrupted training at step 4 of 6" in message
    assert "parameter 'fc1.weight'" in message
    assert "Greatest absolute difference:" in message and "(up to 0 allowed)" in message


def test_resume_equivalent_catches_a_checkpoint_without_rng_state() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_resume_equivalent(Regressor, make_optimizer, train_step, batches(), save_fn=no_rng_save, load_fn=no_rng_load)
    assert "at step 4 of 6" in str(failure.value)
    assert "RNG states" in str(failure.value)
