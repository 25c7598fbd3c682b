from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from torchcheck import CheckFailed, assert_amp_step

from ._helpers import module_unchanged, process_state_unchanged

Batch = tuple[torch.Tensor, torch.Tensor]
Step = Callable[[nn.Module, torch.optim.Optimizer, torch.amp.GradScaler, Batch], Any]


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


# ------------------------------------------------------ planted GradScaler bugs


def clips_before_unscale(model: nn.Module, optimizer: torch.optim.Optimizer, scaler: torch.amp.GradScaler, batch: Batch) -> Any:
    optimizer.zero_grad()
    loss = forward_loss(model, scaler, batch)
    scaler.scale(loss).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # bug: the gradients are still scaled
    scaler.step(optimizer)
    scaler.update()
    return loss


def clip_unscaled(model: nn.Module, optimizer: torch.optim.Optimizer, scaler: torch.amp.GradScaler) -> None:
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)


def unscales_twice(model: nn.Module, optimizer: torch.optim.Optimizer, scaler: torch.amp.GradScaler, batch: Batch) -> Any:
    optimizer.zero_grad()
    loss = forward_loss(model, scaler, batch)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    clip_unscaled(model, optimizer, scaler)  # bug: the helper unscales a second time
    scaler.step(optimizer)
    scaler.update()
    return loss


def forgets_update(model: nn.Module, optimizer: torch.optim.Optimizer, scaler: torch.amp.GradScaler, batch: Batch) -> Any:
    optimizer.zero_grad()
    loss = forward_loss(model, scaler, batch)
    scaler.scale(loss).backward()
    scaler.step(optimizer)  # bug: no scaler.update(), the scale never adapts
    return loss


def steps_around_the_scaler(model: nn.Module, optimizer: torch.optim.Optimizer, scaler: torch.amp.GradScaler, batch: Batch) -> Any:
    optimizer.zero_grad()
    loss = forward_loss(model, scaler, batch)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    optimizer.step()  # bug: applies inf/NaN gradients the scaler would have skipped
    scaler.update()
    return loss


def never_scales(model: nn.Module, optimizer: torch.optim.Optimizer, scaler: torch.amp.GradScaler, batch: Batch) -> Any:
    optimizer.zero_grad()
    loss = forward_loss(model, scaler, batch)
    loss.backward()  # bug: backward of the unscaled loss
    scaler.step(optimizer)
    scaler.update()
    return loss


def skips_update_on_overflow(model: nn.Module, optimizer: torch.optim.Optimizer, scaler: torch.amp.GradScaler, batch: Batch) -> None:
    optimizer.zero_grad()
    scaler.scale(forward_loss(model, scaler, batch)).backward()
    scaler.unscale_(optimizer)
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    if not torch.isfinite(norm):
        return  # bug: skips scaler.update() too, so the scale never backs off
    scaler.step(optimizer)
    scaler.update()


def updates_every_other_step() -> Step:
    calls = []

    def step(model: nn.Module, optimizer: torch.optim.Optimizer, scaler: torch.amp.GradScaler, batch: Batch) -> Any:
        if scaler.is_enabled():  # count the low-precision steps only; the check also runs float32 ones
            calls.append(1)
        optimizer.zero_grad()
        loss = forward_loss(model, scaler, batch)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        if len(calls) % 2 == 1:  # bug: update() indented into a logging branch
            scaler.update()
        return loss

    return step


def loses_precision(model: nn.Module, optimizer: torch.optim.Optimizer, scaler: torch.amp.GradScaler, batch: Batch) -> Any:
    x, y = batch
    optimizer.zero_grad()
    with torch.autocast(x.device.type, enabled=scaler.is_enabled()):
        prediction = model(x)
        dtype = prediction.dtype
        # bug: an offset that low precision cannot hold next to the prediction
        loss = F.mse_loss((prediction + torch.tensor(1000.0, dtype=dtype)) - torch.tensor(1000.0, dtype=dtype), y.to(dtype))
    scaler.scale(loss.float()).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss


# ------------------------------------------------------------------- models


def setup(device: str = "cpu") -> tuple[nn.Module, torch.optim.Optimizer, Batch]:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    batch = (torch.randn(32, 4, device=device), torch.randn(32, 1, device=device))
    return model, optimizer, batch


class ResidualBlock(nn.Module):
    def __init__(self, channels_in: int, channels_out: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels_in, channels_out, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels_out)
        self.conv2 = nn.Conv2d(channels_out, channels_out, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels_out)
        self.shortcut = nn.Sequential(
            nn.Conv2d(channels_in, channels_out, 1, stride, bias=False), nn.BatchNorm2d(channels_out)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.relu(self.shortcut(x) + self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x))))))


class SmallResNet(nn.Module):
    """Four stages down to 1x1: at batch 2 the last BatchNorm sees 2 values per channel."""

    def __init__(self, width: int = 8, classes: int = 10) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, 1, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU())
        self.stages = nn.Sequential(
            ResidualBlock(width, width, 1),
            ResidualBlock(width, 2 * width, 2),
            ResidualBlock(2 * width, 4 * width, 2),
            ResidualBlock(4 * width, 8 * width, 2),
        )
        self.head = nn.Linear(8 * width, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.stages(self.stem(x)).mean((2, 3)))


def classification_step(model: nn.Module, optimizer: torch.optim.Optimizer, scaler: torch.amp.GradScaler, batch: Batch) -> Any:
    images, labels = batch
    model.train()
    optimizer.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=scaler.is_enabled()):
        loss = F.cross_entropy(model(images), labels)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss


def resnet_setup() -> tuple[nn.Module, torch.optim.Optimizer, list[Batch]]:
    torch.manual_seed(11)
    model = SmallResNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    batches = [(torch.randn(2, 3, 8, 8), torch.randint(0, 10, (2,))) for _ in range(2)]
    return model, optimizer, batches


def amp_failure(step_fn: Step) -> str:
    model, optimizer, batch = setup()
    with process_state_unchanged(), module_unchanged(model), pytest.raises(CheckFailed) as failure:
        assert_amp_step(step_fn, model, optimizer, batch, device="cpu")
    assert optimizer.state_dict()["state"] == {}
    return str(failure.value)


# -------------------------------------------------------------- correct steps


def test_amp_step_passes_the_canonical_bfloat16_step_on_cpu() -> None:
    model, optimizer, batch = setup()
    with process_state_unchanged(), module_unchanged(model):
        assert_amp_step(good_step, model, optimizer, batch, device="cpu")
    assert optimizer.state_dict()["state"] == {}


def test_amp_step_takes_a_list_of_batches_one_step_each() -> None:
    model, optimizer, (x, y) = setup()
    assert_amp_step(good_step, model, optimizer, [(x[:16], y[:16]), (x[16:], y[16:])], device="cpu")


def test_amp_step_passes_a_bfloat16_resnet_whose_batch_norm_sees_two_samples() -> None:
    model, optimizer, batches = resnet_setup()
    with process_state_unchanged(), module_unchanged(model):
        assert_amp_step(classification_step, model, optimizer, batches, device="cpu")


class LowPrecisionKernelDropout(nn.Module):
    """Dropout whose random numbers depend on the precision, as on a GPU: in float16,
    attention runs the flash kernel, which draws its mask its own way (the float32 run
    takes another kernel). Modelled here by the extra draw such a kernel makes first."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.training and x.dtype != torch.float32:
            torch.rand(x.shape[-1])  # the low-precision kernel's own draw
        return F.dropout(x, 0.5, self.training)


def test_amp_step_passes_a_model_whose_dropout_draws_other_masks_in_low_precision() -> None:
    """Found on the first GPU run: a transformer classifier with dropout failed the
    float16 loss comparison on correct code, since the two runs dropped other units."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), LowPrecisionKernelDropout(), nn.Linear(64, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
    batch = (torch.randn(32, 4), torch.randn(32, 1))
    with process_state_unchanged(), module_unchanged(model):
        assert_amp_step(good_step, model, optimizer, batch, device="cpu")


def test_amp_step_uses_the_tolerance_it_is_given() -> None:
    model, optimizer, batches = resnet_setup()
    with pytest.raises(CheckFailed) as failure:
        assert_amp_step(classification_step, model, optimizer, batches, device="cpu", rtol=0.0, atol=1e-6)
    message = str(failure.value)
    assert "the loss under autocast at step 1 is" in message and "rtol=0, atol=1e-06" in message
    assert "BatchNorm layers run in train mode ('stages.0.bn1', 'stages.0.bn2', 'stages.0.shortcut.1', " \
        "'stages.1.bn1' and 9 more)" in message


def test_amp_step_passes_a_tiny_gpt2_step_that_returns_nothing() -> None:
    from ._tiny_hf import tiny_gpt2, token_batch

    def hf_step(model: nn.Module, optimizer: torch.optim.Optimizer, scaler: torch.amp.GradScaler, batch: Any) -> None:
        model.train()
        optimizer.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=scaler.is_enabled()):
            loss = model(**batch).loss
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()

    torch.manual_seed(0)
    model = tiny_gpt2()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    with process_state_unchanged(), module_unchanged(model):
        assert_amp_step(hf_step, model, optimizer, token_batch(), device="cpu")


# -------------------------------------------------------- each mistake, named


def test_amp_step_names_clipping_before_unscale() -> None:
    message = amp_failure(clips_before_unscale)
    assert message.startswith(
        "assert_amp_step (cpu, torch.bfloat16): clip_grad_norm_ clipped gradients before scaler.unscale_(optimizer): "
        "they were still multiplied by the loss scale (1024)"
    )
    recorded, expected = message.splitlines()[1:3]
    assert recorded == "  calls in step 1 of 3: scaler.scale(loss) -> backward -> clip_grad_norm_ -> " \
        "scaler.step(optimizer) -> scaler.update()"
    assert expected.startswith("  expected:")
    assert expected.index("scaler.scale(loss) -> backward -> scaler.unscale_") == recorded.index("scaler")
    assert "unscaled loss" not in message


def test_amp_step_names_unscale_called_twice() -> None:
    message = amp_failure(unscales_twice)
    assert "scaler.unscale_(optimizer) ran again after scaler.unscale_(optimizer) without scaler.update() " \
        "in between" in message
    assert "(step_fn then raised RuntimeError: unscale_() has already been called on this optimizer since the " \
        "last update().)" in message


def test_amp_step_names_a_step_without_update() -> None:
    message = amp_failure(forgets_update)
    assert "scaler.update() is never called after scaler.step(optimizer)" in message
    assert "calls in step 1 of 3: scaler.scale(loss) -> backward -> scaler.step(optimizer)\n" in message


def test_amp_step_names_an_optimizer_stepped_around_the_scaler() -> None:
    message = amp_failure(steps_around_the_scaler)
    assert "the optimizer was stepped directly (optimizer.step()), not through scaler.step(optimizer)" in message
    assert "-> scaler.unscale_(optimizer) -> optimizer.step() -> scaler.update()" in message


def test_amp_step_names_a_backward_of_the_unscaled_loss() -> None:
    message = amp_failure(never_scales)
    assert "backward ran on the unscaled loss" in message
    assert "calls in step 1 of 3: backward -> scaler.step(optimizer)" in message


def test_amp_step_names_an_update_skipped_when_gradients_overflow() -> None:
    message = amp_failure(skips_update_on_overflow)
    assert "scaler.update() is skipped on the step whose gradients overflow but called on clean steps" in message
    assert "calls in the overflow step: scaler.scale(loss) -> backward -> scaler.unscale_(optimizer) -> " \
        "clip_grad_norm_\n" in message


def test_amp_step_names_an_update_skipped_on_some_steps() -> None:
    message = amp_failure(updates_every_other_step())
    assert "scaler.update() is skipped on step 2 but called on step 1" in message


def test_amp_step_catches_a_loss_that_loses_precision_under_autocast() -> None:
    message = amp_failure(loses_precision)
    assert "the loss under autocast at step 1 is" in message
    assert "A numerically fragile op runs in torch.bfloat16." in message


def test_amp_step_puts_the_clipping_functions_back_after_a_failure() -> None:
    clip_module = torch.nn.utils.clip_grad
    originals = (clip_module.clip_grad_value_, torch.nn.utils.clip_grad_value_, torch.nn.utils.clip_grads_with_norm_)
    amp_failure(clips_before_unscale)
    assert (clip_module.clip_grad_value_, torch.nn.utils.clip_grad_value_, torch.nn.utils.clip_grads_with_norm_) == originals


def test_amp_step_rejects_an_empty_list_of_batches() -> None:
    model, optimizer, _ = setup()
    with pytest.raises(ValueError, match="batches is an empty list"):
        assert_amp_step(good_step, model, optimizer, [], device="cpu")


# ---------------------------------------------------------------------- CUDA


@pytest.mark.cuda
def test_amp_step_passes_the_float16_step_on_cuda() -> None:
    model, optimizer, batch = setup("cuda")
    with module_unchanged(model):
        assert_amp_step(good_step, model, optimizer, batch, device="cuda")


@pytest.mark.cuda
def test_amp_step_names_clipping_before_unscale_on_cuda() -> None:
    model, optimizer, batch = setup("cuda")
    with pytest.raises(CheckFailed, match="clip_grad_norm_ clipped gradients before scaler.unscale_"):
        assert_amp_step(clips_before_unscale, model, optimizer, batch, device="cuda")
