from __future__ import annotations

import os
import random

import numpy as np
import torch

from torchcheck import seed_everything, seeded
from torchcheck.checks.state import capture_global_state, preserved_state

from ._helpers import process_state_unchanged


def test_seed_everything_makes_every_generator_repeat() -> None:
    with preserved_state():  # seeding is this function's job: undo it for other tests
        seed_everything(7)
        first = (random.random(), float(np.random.rand()), torch.rand(3))
        seed_everything(7)
        second = (random.random(), float(np.random.rand()), torch.rand(3))
    assert first[:2] == second[:2]
    assert torch.equal(first[2], second[2])


def test_seeded_yields_the_seed_and_turns_on_determinism() -> None:
    with seeded(3) as seed:
        assert seed == 3
        assert torch.are_deterministic_algorithms_enabled()
        assert torch.backends.cudnn.deterministic
        assert os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":4096:8"


def test_seeded_restores_rng_flags_and_environment_on_exit() -> None:
    env_before = os.environ.get("CUBLAS_WORKSPACE_CONFIG")
    with process_state_unchanged():
        with seeded(5):
            torch.rand(4)
            torch.set_default_dtype(torch.float64)
    assert os.environ.get("CUBLAS_WORKSPACE_CONFIG") == env_before


def test_seeded_restores_state_when_the_block_raises() -> None:
    before = capture_global_state()
    try:
        with seeded(1):
            raise ValueError("inside")
    except ValueError:
        pass
    assert capture_global_state() == before


def test_seeded_without_determinism_leaves_the_flag_alone() -> None:
    with seeded(2, deterministic=False):
        assert not torch.are_deterministic_algorithms_enabled()
        a = torch.rand(2)
    with seeded(2, deterministic=False):
        assert torch.equal(torch.rand(2), a)


def test_seeded_keeps_a_user_chosen_cublas_workspace() -> None:
    os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":16:8"
    try:
        with seeded(0):
            assert os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":16:8"
        assert os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":16:8"
    finally:
        del os.environ["CUBLAS_WORKSPACE_CONFIG"]
