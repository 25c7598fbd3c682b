from __future__ import annotations

import copy

import pytest
import torch
from torch import nn

from torchcheck import CheckFailed, assert_devices_agree, available_devices
import torchcheck.checks.devices as devices_module
from torchcheck.checks.devices import device_tolerance

from ._helpers import process_state_unchanged


class Positional(nn.Module):
    def __init__(self, hard_coded: bool = False) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.hard_coded = hard_coded

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        device = "cpu" if self.hard_coded else x.device  # bug when hard-coded
        return self.fc(x) + torch.arange(x.shape[-1], device=device)


def test_available_devices_starts_with_cpu() -> None:
    devices = available_devices()
    assert devices[0] == torch.device("cpu")
    assert len(devices) == 1 + (torch.cuda.device_count() if torch.cuda.is_available() else 0) + (
        1 if torch.backends.mps.is_available() else 0
    )


def test_devices_agree_passes_a_device_agnostic_model_everywhere() -> None:
    x = torch.randn(2, 4)
    with process_state_unchanged():
        assert_devices_agree(Positional, x)
        assert_devices_agree(Positional, x, devices=["cpu", "meta"])


def test_devices_agree_finds_a_hard_coded_device_on_meta_without_a_gpu() -> None:
    with process_state_unchanged(), pytest.raises(CheckFailed) as failure:
        assert_devices_agree(lambda: Positional(hard_coded=True), torch.ones(2, 4), devices=["cpu", "meta"])
    message = str(failure.value)
    assert "model Positional fails on meta but runs on cpu" in message
    assert "hard-coded device" in message


def test_devices_agree_compares_plain_functions() -> None:
    assert_devices_agree(torch.matmul, torch.ones(2, 3), torch.ones(3, 2), devices=["cpu", "meta"])


def test_device_tolerance_loosens_float32_only_for_accelerators() -> None:
    assert device_tolerance(torch.device("cuda"), torch.float64) == (1e-7, 1e-7)
    assert device_tolerance(torch.device("cuda"), torch.int64) == (0.0, 0.0)
    assert device_tolerance(torch.device("mps"), torch.float16) == (1e-2, 1e-3)


@pytest.mark.cuda
def test_devices_agree_names_the_output_that_differs_on_cuda() -> None:
    def device_dependent(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return x, x * (1.0 if x.device.type == "cpu" else 1.1)

    with pytest.raises(CheckFailed) as failure:
        assert_devices_agree(device_dependent, torch.ones(3))
    assert "device_dependent() on cuda:0 differs from cpu at output[1]" in str(failure.value)
    assert "TF32 matmul=" in str(failure.value)


@pytest.mark.cuda
def test_devices_agree_catches_a_hard_coded_device_on_cuda() -> None:
    with pytest.raises(CheckFailed, match="fails on cuda:0 but runs on cpu"):
        assert_devices_agree(lambda: Positional(hard_coded=True), torch.ones(2, 4))


class KeywordModel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> dict[str, object]:
        hidden = self.fc(input_ids) * attention_mask[..., None]
        return {"hidden": hidden, "cache": Cache(hidden, hidden.device)}


class Cache:
    """Like transformers' DynamicCache: tensors and their device in plain attributes."""

    def __init__(self, keys: torch.Tensor, device: torch.device) -> None:
        self.keys = keys
        self.device = device


def test_devices_agree_passes_a_dict_as_keywords_and_compares_objects_holding_tensors() -> None:
    inputs = {"input_ids": torch.randn(2, 3, 4), "attention_mask": torch.ones(2, 3)}
    instance = KeywordModel()
    with process_state_unchanged():
        assert_devices_agree(KeywordModel, inputs, devices=["cpu", "meta"])
        assert_devices_agree(instance, inputs, devices=["cpu", "meta"])


def test_devices_agree_names_a_shape_difference_inside_an_object_on_meta() -> None:
    def cache_shape_depends_on_device(x: torch.Tensor) -> Cache:
        keys = x if x.device.type == "cpu" else x[:1]  # bug: device-dependent structure
        return Cache(keys, x.device)

    with pytest.raises(CheckFailed) as failure:
        assert_devices_agree(cache_shape_depends_on_device, torch.ones(2, 4), devices=["cpu", "meta"])
    assert "than on cpu at output.keys" in str(failure.value)
    assert "Shapes differ: (1, 4) != (2, 4)" in str(failure.value)


class RecurrentLm(nn.Module):
    """A GRU over 64 steps: the recurrence carries every rounding forward, so a device
    that rounds more (TF32 in cuDNN) misses the float32 table on a few elements."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(50, 32)
        self.gru = nn.GRU(32, 64, num_layers=2, batch_first=True)
        self.head = nn.Linear(64, 50)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.head(self.gru(self.embed(tokens))[0])


def test_a_device_difference_is_judged_against_the_rounding_the_model_itself_amplifies() -> None:
    """Found on the first GPU run: a tied GRU LM differed from cpu on 3 of 2048 logits
    (cuDNN in TF32, whose unit roundoff is 8192 times float32's), past the table's
    tolerance. Stand-in for that device: this model's own float32 rounding error (against
    float64) made 20000 times larger. A real difference in one position does not pass."""
    torch.manual_seed(0)
    model, tokens = RecurrentLm().eval(), torch.randint(0, 50, (2, 64))
    exact = devices_module._LazyExact(lambda device: copy.deepcopy(model), (tokens,))
    with torch.no_grad():
        on_cpu = model(tokens)
    truth = exact.tensors()["output"].float()
    rounded_more = truth + (on_cpu - truth) * 20000
    assert not torch.allclose(rounded_more, on_cpu, rtol=5e-3, atol=1e-3)  # the table alone fails it
    cuda = torch.device("cuda", 0)  # only a label here: the precision of a TF32 device
    with torch.backends.cudnn.flags(allow_tf32=True):
        assert devices_module._rounding_verdict(cuda, rounded_more, on_cpu, exact) == ""
        wrong = on_cpu.clone()
        wrong[0, 0, :8] += 0.2  # a bug in one position, not rounding
        note = devices_module._rounding_verdict(cuda, wrong, on_cpu, exact)
    assert note is not None and "Not rounding alone: the model rounds" in note and "tf32 on cuda:0" in note


@pytest.mark.cuda
def test_a_recurrent_model_agrees_on_cuda_within_the_rounding_it_amplifies() -> None:
    torch.manual_seed(0)
    assert_devices_agree(RecurrentLm, torch.randint(0, 50, (2, 64)), devices=["cpu", "cuda"])
