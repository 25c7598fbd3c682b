"""The checks on a real CUDA device: forked CPU ranks beside an initialised GPU, float16
AMP with a gradient overflow that really happens, tiny transformers models on ``cuda``
through ``torch_device``, and the ``distributed`` marker on nccl.

Every test here carries the `cuda` marker (`.ci/gpu` selects by it) and is skipped with its
reason on a machine without CUDA.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

import torchcheck as tc

from .test_distributed import global_batches, mlp, sgd, train_step

pytestmark = pytest.mark.cuda

FORKED_RANK_PROBE = """
import json
import torch
from torchcheck.checks._rank_runner import run_forked
from torchcheck.checks.devices import available_devices
from torchcheck.checks.state import preserved_state

def probe(rank):
    with preserved_state():
        torch.manual_seed(rank)
    return {"devices": [d.type for d in available_devices()], "cuda_initialised": torch.cuda.is_initialized()}

with preserved_state():  # capturing and restoring RNG state here must not start CUDA either
    torch.manual_seed(0)
assert not torch.cuda.is_initialized()
result = run_forked(probe, 2, timeout=120)
assert not result.failed, result
assert not torch.cuda.is_initialized()
print(json.dumps([outcome.returned for outcome in result.outcomes]))
"""


DISTRIBUTED_AFTER_A_CUDA_BACKWARD = """
import pytest
import torch
from torch import nn

import torchcheck as tc

def test_cuda_first():
    layer = nn.Linear(4, 1).cuda()
    layer(torch.randn(2, 4, device="cuda")).sum().backward()

@pytest.mark.distributed(world_size=2)
def test_then_cpu_ranks(rank):
    def step(model, optimizer, batch):
        optimizer.zero_grad()
        model(batch[0]).pow(2).mean().backward()
        optimizer.step()
    batches = [(torch.randn(4, 6),) for _ in range(2)]
    make = lambda: nn.Linear(6, 2)
    tc.assert_data_parallel_equivalent(make, lambda m: torch.optim.SGD(m.parameters(), lr=0.1), step, batches)
"""


def test_a_distributed_check_called_in_a_process_that_initialised_cuda_says_how_to_run_it() -> None:
    torch.zeros(1, device="cuda")  # the ranks would be forks of a process with a live CUDA context
    with pytest.raises(RuntimeError, match=r"@pytest.mark.distributed\(world_size=2\): its ranks then start"):
        tc.assert_data_parallel_equivalent(mlp, sgd, train_step, global_batches())


def test_after_a_cuda_backward_a_distributed_test_runs_its_cpu_ranks_as_fresh_processes(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(DISTRIBUTED_AFTER_A_CUDA_BACKWARD)
    result = pytester.runpytest_subprocess("-p", "no:randomly", "--torchcheck-device", "cpu")
    result.assert_outcomes(passed=2)


def test_neither_preserved_state_nor_a_forked_cpu_rank_initialises_cuda() -> None:
    result = subprocess.run([sys.executable, "-c", FORKED_RANK_PROBE], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    ranks = json.loads(result.stdout.splitlines()[-1])
    assert ranks == [{"devices": ["cpu"], "cuda_initialised": False}] * 2


# ------------------------------------------------ float16 AMP, a real overflow

Batch = tuple[torch.Tensor, torch.Tensor]


def loud_regressor() -> nn.Module:
    """Outputs around 1e3: at the check's initial loss scale (1024) the float16 gradient
    of the loss with respect to them is about 5e5, past float16's largest value (65504)."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    with torch.no_grad():
        model[2].weight.mul_(100.0)
    return model.cuda()


def loud_batch() -> Batch:
    generator = torch.Generator().manual_seed(1)
    x = 10.0 * torch.rand(4, 8, generator=generator)
    return x.cuda(), torch.zeros(4, 1, device="cuda")


def amp_loss(model: nn.Module, scaler: torch.amp.GradScaler, batch: Batch) -> torch.Tensor:
    x, y = batch
    with torch.autocast("cuda", dtype=torch.float16, enabled=scaler.is_enabled()):
        return F.mse_loss(model(x).float(), y)


def scaler_step(model: nn.Module, optimizer: torch.optim.Optimizer, scaler: torch.amp.GradScaler, batch: Batch) -> Any:
    optimizer.zero_grad()
    loss = amp_loss(model, scaler, batch)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss


def direct_step(model: nn.Module, optimizer: torch.optim.Optimizer, scaler: torch.amp.GradScaler, batch: Batch) -> Any:
    optimizer.zero_grad()
    loss = amp_loss(model, scaler, batch)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    optimizer.step()  # bug: applies the overflowed gradients the scaler would have skipped
    scaler.update()
    return loss


def test_the_loud_model_really_overflows_in_float16_at_the_initial_loss_scale() -> None:
    model, batch = loud_regressor(), loud_batch()
    scaler = torch.amp.GradScaler("cuda", init_scale=1024.0)
    scaler.scale(amp_loss(model, scaler, batch)).backward()
    assert not all(torch.isfinite(p.grad).all() for p in model.parameters())


def test_amp_step_passes_a_gradscaler_step_whose_float16_gradients_really_overflow() -> None:
    model = loud_regressor()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)
    tc.assert_amp_step(scaler_step, model, optimizer, [loud_batch()] * 3, device="cuda")


def test_amp_step_names_an_optimizer_stepped_around_the_scaler_on_a_real_overflow() -> None:
    model = loud_regressor()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)
    with pytest.raises(tc.CheckFailed) as failure:
        tc.assert_amp_step(direct_step, model, optimizer, [loud_batch()] * 3, device="cuda")
    assert "the optimizer was stepped directly (optimizer.step())" in str(failure.value)


# ------------------------------------------- real transformers models on cuda

transformers = pytest.importorskip("transformers")

from .test_real_models import MODELS, tokenized  # noqa: E402  (needs transformers)


def on(device: torch.device, batch: Any) -> Any:
    return transformers.BatchEncoding({key: value.to(device) for key, value in batch.items()})


def with_labels(name: str, batch: Any) -> Any:
    labels = torch.tensor([0, 2]) if name == "bert" else batch["input_ids"]
    return transformers.BatchEncoding({**batch, "labels": labels})


def hf_amp_step(model: nn.Module, optimizer: torch.optim.Optimizer, scaler: torch.amp.GradScaler, batch: Any) -> Any:
    optimizer.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16, enabled=scaler.is_enabled()):
        loss = model(**batch).loss
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    return loss


@pytest.mark.devices("cuda")
@pytest.mark.parametrize("name", MODELS)
def test_a_real_model_on_cuda_agrees_with_cpu(name: str, torch_device: torch.device) -> None:
    tc.assert_devices_agree(MODELS[name], tokenized(name), devices=["cpu", torch_device])


@pytest.mark.devices("cuda")
@pytest.mark.parametrize("name", MODELS)
def test_every_parameter_of_a_real_model_on_cuda_gets_a_gradient(name: str, torch_device: torch.device) -> None:
    tc.assert_gradients_flow(MODELS[name]().to(torch_device), on(torch_device, tokenized(name)))


@pytest.mark.devices("cuda")
@pytest.mark.parametrize("name", ["llama", "gpt2", "bert"])  # T5 is not float16-safe: the check says so
def test_a_real_model_passes_the_float16_amp_step_on_cuda(name: str, torch_device: torch.device) -> None:
    model = MODELS[name]().to(torch_device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    batch = on(torch_device, with_labels(name, tokenized(name)))
    tc.assert_amp_step(hf_amp_step, model, optimizer, batch, device=torch_device)


# ------------------------------------------------------ the marker on nccl


@pytest.mark.devices("cuda")
@pytest.mark.distributed(world_size=1, backend="nccl")
def test_the_distributed_marker_runs_a_one_gpu_nccl_group(rank: int, torch_device: torch.device) -> None:
    assert torch_device.type == "cuda"
    total = torch.ones(3, device=torch_device)
    dist.all_reduce(total)
    assert dist.get_backend() == "nccl"
    assert total.tolist() == [1.0, 1.0, 1.0]
