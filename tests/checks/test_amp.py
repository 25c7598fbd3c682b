from __future__ import annotations

from typing import Any

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from torchcheck import CheckFailed, assert_amp_step

from ._helpers import module_unchanged, process_state_unchanged

Batch = tuple[torch.Tensor, torch.Tensor]


def forward_loss(model: nn.Module, scaler: torch.amp.GradScaler, batch: Batch) -> torch.Tensor:
    x, y = batch
    with torch.autocast(x.device.type, enabled=scaler.is_enabled()):
        return F.mse_loss(model(x).float(), y)


def good_step(model: nn.Module, optimizer: torch.optim.Optimizer, scaler: torch.amp.GradScaler, batch: Batch) -> Any:
    optimizer.zero_grad()
    loss = forward_loss(model, scaler, batch)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    return loss


def steps_around_the_scaler(model: nn.Module, optimizer: torch.optim.Optimizer, scaler: torch.amp.GradScaler, batch: Batch) -> Any:
    optimizer.zero_grad()
    loss = forward_loss(model, scaler, batch)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    optimizer.step()  # bug: applies inf/NaN gradients the scaler would have skipped
    scaler.update()
    return loss


def forgets_update(model: nn.Module, optimizer: torch.optim.Optimizer, scaler: torch.amp.GradScaler, batch: Batch) -> Any:
    optimizer.zero_grad()
    loss = forward_loss(model, scaler, batch)
    scaler.scale(loss).backward()
    scaler.step(optimizer)  # bug: no scaler.update(), the scale never adapts
    return loss


def never_scales(model: nn.Module, optimizer: torch.optim.Optimizer, scaler: torch.amp.GradScaler, batch: Batch) -> Any:
    optimizer.zero_grad()
    loss = forward_loss(model, scaler, batch)
    loss.backward()  # bug: backward of the unscaled loss
    scaler.step(optimizer)
    scaler.update()
    return loss


def fragile_loss(model: nn.Module, optimizer: torch.optim.Optimizer, scaler: torch.amp.GradScaler, batch: Batch) -> Any:
    x, y = batch
    optimizer.zero_grad()
    with torch.autocast(x.device.type, enabled=scaler.is_enabled()):
        logits = model(x) * 1000  # bug: exp of large values in low precision
        loss = torch.exp(logits.to(torch.get_autocast_dtype(x.device.type) if scaler.is_enabled() else torch.float32)).mean().log()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss


def setup(device: str = "cpu") -> tuple[nn.Module, torch.optim.Optimizer, Batch]:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    batch = (torch.randn(32, 4, device=device), torch.randn(32, 1, device=device))
    return model, optimizer, batch


def test_amp_step_passes_the_canonical_bfloat16_step_on_cpu() -> None:
    model, optimizer, batch = setup()
    with process_state_unchanged(), module_unchanged(model):
        assert_amp_step(good_step, model, optimizer, batch, device="cpu")
    assert optimizer.state_dict()["state"] == {}


def test_amp_step_catches_an_optimizer_stepped_around_the_scaler() -> None:
    model, optimizer, batch = setup()
    with process_state_unchanged(), module_unchanged(model), pytest.raises(CheckFailed) as failure:
        assert_amp_step(steps_around_the_scaler, model, optimizer, batch, device="cpu")
    message = str(failure.value)
    assert message.startswith("assert_amp_step (cpu, torch.bfloat16): on a step whose gradients overflowed")
    assert "the parameters changed:\n  0.weight:" in message
    assert "Mismatched elements: 64 / 64 (100.0%)" in message
    assert "also changed: 0.bias, 2.weight, 2.bias" in message
    assert optimizer.state_dict()["state"] == {}


def test_amp_step_catches_a_missing_scaler_update() -> None:
    model, optimizer, batch = setup()
    with pytest.raises(CheckFailed) as failure:
        assert_amp_step(forgets_update, model, optimizer, batch, device="cpu")
    assert "the loss scale is still 1024 after the clean step" in str(failure.value)
    assert "scaler.update() is not called" in str(failure.value)


def test_amp_step_catches_a_backward_of_the_unscaled_loss() -> None:
    model, optimizer, batch = setup()
    with pytest.raises(CheckFailed) as failure:
        assert_amp_step(never_scales, model, optimizer, batch, device="cpu")
    assert "backward ran on the unscaled loss" in str(failure.value)


def test_amp_step_catches_a_loss_that_overflows_in_low_precision() -> None:
    model, optimizer, batch = setup()
    with pytest.raises(CheckFailed) as failure:
        assert_amp_step(fragile_loss, model, optimizer, batch, device="cpu")
    assert "the loss under autocast is" in str(failure.value)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_amp_step_passes_the_float16_step_on_cuda() -> None:
    model, optimizer, batch = setup("cuda")
    with module_unchanged(model):
        assert_amp_step(good_step, model, optimizer, batch, device="cuda")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_amp_step_catches_a_missing_update_on_cuda() -> None:
    model, optimizer, batch = setup("cuda")
    with pytest.raises(CheckFailed, match="scaler.update\\(\\) is not called"):
        assert_amp_step(forgets_update, model, optimizer, batch, device="cuda")
