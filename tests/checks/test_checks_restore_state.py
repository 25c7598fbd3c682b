"""Every check leaves the process as it found it, also when it fails."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
import torch
from torch import nn

import torchcheck as tc
from torchcheck.checks.state import capture_global_state, restore_global_state

from ._helpers import process_state_unchanged
from ._models import TINY, Transformer
from .test_amp import forgets_update
from .test_checkpoint import PlainAttribute, Regressor, batches, make_optimizer, model_only_load, model_only_save, train_step
from .test_gradients import SequencePool, TwoLayer, WrongCube
from .test_leaks import Trainer
from .test_reproducibility import unseeded_numpy_noise


def _amp() -> Callable[[], None]:
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    batch = (torch.ones(4, 4), torch.ones(4, 1))
    return lambda: tc.assert_amp_step(forgets_update, model, optimizer, batch, device="cpu")


def _devices_agree() -> None:
    tc.assert_devices_agree(lambda: nn.Linear(2, 2), torch.ones(1, 2), devices=["cpu", "meta"])
    raise tc.CheckFailed("passed as expected; raised to share the failing path")


# name -> prepares (outside the state comparison: building models draws random numbers)
# a call that fails
FAILING_CHECKS: dict[str, Callable[[], Callable[[], None]]] = {
    "reproducible": lambda: lambda: tc.assert_reproducible(unseeded_numpy_noise),
    "gradcheck": lambda: lambda: tc.assert_gradcheck(WrongCube.apply, torch.ones(2)),
    "gradients_flow": lambda: (lambda m: lambda: tc.assert_gradients_flow(m, torch.ones(2, 4)))(TwoLayer(unused=True)),
    "batch_independent": lambda: (lambda m: lambda: tc.assert_batch_independent(m, torch.ones(2, 3, 3)))(
        SequencePool(mixes_batch=True)),
    "amp_step": _amp,
    "checkpoint_roundtrip": lambda: lambda: tc.assert_checkpoint_roundtrip(PlainAttribute, torch.ones(1, 4)),
    "resume_equivalent": lambda: (lambda data: lambda: tc.assert_resume_equivalent(
        Regressor, make_optimizer, train_step, data, save_fn=model_only_save, load_fn=model_only_load))(batches()),
    "meta_shapes": lambda: lambda: tc.assert_meta_shapes(
        lambda: Transformer(TINY, bug_in_block=1), torch.zeros(1, 4, dtype=torch.long)),
    "meta_load": lambda: lambda: tc.assert_meta_load(lambda: nn.Linear(2, 2), {"weight": torch.ones(2, 2)}),
    "devices_agree": lambda: _devices_agree,
    "no_graph_leak": lambda: (lambda t: lambda: tc.assert_no_graph_leak(t.step, steps=2))(Trainer("tensor")),
}


@pytest.fixture
def unusual_global_state() -> Iterator[None]:
    """Non-default settings, so a check that resets instead of restoring is caught."""
    before = capture_global_state()
    torch.set_default_dtype(torch.float64)
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.backends.cudnn.benchmark = True
    torch.set_num_threads(1)
    try:
        yield
    finally:
        restore_global_state(before)


@pytest.mark.parametrize("name", sorted(FAILING_CHECKS))
def test_failing_check_restores_rng_and_global_state(name: str, unusual_global_state: None) -> None:
    torch.set_default_dtype(torch.float32)  # the tiny models are float32
    check = FAILING_CHECKS[name]()
    with process_state_unchanged(), pytest.raises(tc.CheckFailed):
        check()
