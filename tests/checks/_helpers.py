"""Helpers for the checks tests: proving that a block leaves the process as it was."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator

import numpy as np
import torch
from torch import nn

from torchcheck.checks.state import capture_global_state, describe_state_changes


@contextlib.contextmanager
def process_state_unchanged() -> Iterator[None]:
    """Fail if the block changes any RNG or global torch setting, also when it raises."""
    python, numpy_state, torch_rng = random.getstate(), np.random.get_state(), torch.get_rng_state()
    before = capture_global_state()
    try:
        yield
    finally:
        assert describe_state_changes(before, capture_global_state()) == []
        assert random.getstate() == python, "python random state changed"
        after_np = np.random.get_state()
        assert after_np[0] == numpy_state[0] and np.array_equal(after_np[1], numpy_state[1]), "numpy RNG changed"
        assert after_np[2:] == numpy_state[2:], "numpy RNG changed"
        assert torch.equal(torch.get_rng_state(), torch_rng), "torch RNG changed"


@contextlib.contextmanager
def module_unchanged(model: nn.Module) -> Iterator[None]:
    """Fail if the block changes the model's tensors, grads or train/eval modes."""
    tensors = {k: v.detach().clone() for k, v in model.state_dict(keep_vars=True).items()}
    grads = {n: None if p.grad is None else p.grad.clone() for n, p in model.named_parameters()}
    modes = {n: m.training for n, m in model.named_modules()}
    try:
        yield
    finally:
        for key, value in model.state_dict(keep_vars=True).items():
            assert torch.equal(value.detach(), tensors[key]), f"{key} changed"
        for name, param in model.named_parameters():
            saved = grads[name]
            assert (param.grad is None) == (saved is None), f"{name}.grad changed"
            if saved is not None:
                assert torch.equal(param.grad, saved), f"{name}.grad changed"
        assert {n: m.training for n, m in model.named_modules()} == modes, "train/eval mode changed"
