from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pytest
import torch

from torchcheck.checks.state import (
    ModuleSnapshot,
    capture_print_options,
    capture_global_state,
    capture_rng_state,
    describe_state_changes,
    preserved_state,
    restore_global_state,
    restore_print_options,
    restore_rng_state,
)

CAPTURE_AND_RESTORE_WITH_CUDA_AUTOCAST = """
import torch
from torchcheck.checks.state import capture_global_state, restore_global_state

before = capture_global_state()
torch.set_autocast_enabled("cuda", True)
torch.backends.cudnn.allow_tf32 = not torch.backends.cudnn.allow_tf32
restore_global_state(before)
assert capture_global_state() == before
assert not torch.cuda.is_initialized(), "capturing or restoring state initialised CUDA"
"""


def test_describe_state_changes_names_the_default_dtype_change() -> None:
    before = capture_global_state()
    torch.set_default_dtype(torch.float64)
    try:
        changes = describe_state_changes(before, capture_global_state())
    finally:
        restore_global_state(before)
    assert changes == ["default dtype changed from torch.float32 to torch.float64"]
    assert torch.get_default_dtype() == torch.float32


def test_restore_global_state_puts_every_flag_back() -> None:
    before = capture_global_state()
    torch.set_grad_enabled(False)
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.backends.cudnn.benchmark = not before.cudnn_benchmark
    torch.set_default_device("meta")
    torch.set_num_threads(torch.get_num_threads() % 2 + 1)  # a change whatever the plugins set
    changed = capture_global_state()
    restore_global_state(before)
    assert len(describe_state_changes(before, changed)) == 6
    assert capture_global_state() == before
    assert torch.empty(1).device.type == "cpu"


def test_rng_snapshot_replays_python_numpy_and_torch() -> None:
    state = capture_rng_state()
    first = (random.random(), np.random.rand(), torch.rand(2))
    restore_rng_state(state)
    second = (random.random(), np.random.rand(), torch.rand(2))
    assert first[:2] == second[:2]
    assert torch.equal(first[2], second[2])


def test_preserved_state_restores_even_when_the_block_raises() -> None:
    before = capture_global_state()
    expected = torch.get_rng_state()
    try:
        with preserved_state():
            torch.rand(3)
            torch.set_default_dtype(torch.float64)
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    assert capture_global_state() == before
    assert torch.equal(torch.get_rng_state(), expected)


def test_module_snapshot_restores_values_grads_and_modes() -> None:
    model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout())
    weight = model[0].weight.detach().clone()
    snapshot = ModuleSnapshot.capture(model)
    model(torch.ones(1, 2)).sum().backward()
    with torch.no_grad():
        model[0].weight.add_(1)
    model.eval()
    snapshot.restore(model)
    assert torch.equal(model[0].weight, weight)
    assert model[0].weight.grad is None
    assert model.training and model[1].training


@pytest.mark.cuda  # a CUDA device to leave uninitialised
def test_capturing_and_restoring_state_never_initialises_cuda() -> None:
    subprocess.run([sys.executable, "-c", CAPTURE_AND_RESTORE_WITH_CUDA_AUTOCAST], check=True)


def test_print_options_come_back_including_automatic_scientific_notation() -> None:
    before = capture_print_options()
    torch.set_printoptions(precision=1, threshold=3, edgeitems=1, linewidth=30, sci_mode=True)
    changed = capture_print_options()
    restore_print_options(before)
    assert changed != before
    assert before.sci_mode is None  # torch's default: chosen per tensor
    assert capture_print_options() == before


def _saved_tensors_hooks_top() -> tuple | None:
    return torch._C._autograd._top_saved_tensors_default_hooks(False)


def _identity(tensor: torch.Tensor) -> torch.Tensor:
    return tensor


def _other_identity(tensor: torch.Tensor) -> torch.Tensor:
    return tensor


def test_preserved_state_pops_a_saved_tensors_hook_the_block_left_pushed() -> None:
    with torch.autograd.graph.saved_tensors_hooks(_identity, _identity):
        try:
            with preserved_state():
                torch.autograd.graph.saved_tensors_hooks(_other_identity, _other_identity).__enter__()
            top = _saved_tensors_hooks_top()
        finally:
            while _saved_tensors_hooks_top() != (_identity, _identity):
                torch._C._autograd._pop_saved_tensors_default_hooks()
    assert top == (_identity, _identity)
    assert _saved_tensors_hooks_top() is None


def test_preserved_state_pushes_back_a_saved_tensors_hook_the_block_popped() -> None:
    with torch.autograd.graph.saved_tensors_hooks(_identity, _identity):
        with preserved_state():
            torch._C._autograd._pop_saved_tensors_default_hooks()
        top = _saved_tensors_hooks_top()
        if top is None:  # put it back for the context manager's own exit
            torch._C._autograd._push_saved_tensors_default_hooks(_identity, _identity)
    assert top == (_identity, _identity)
