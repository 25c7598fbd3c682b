from __future__ import annotations

import numpy as np
import pytest
import torch

from torchcheck import CheckFailed, assert_reproducible

from ._helpers import process_state_unchanged


def seeded_dropout() -> dict[str, torch.Tensor]:
    x = torch.randn(4, 3)
    return {"dropped": torch.nn.functional.dropout(x, 0.5), "sum": x.sum()}


def unseeded_numpy_noise() -> tuple[torch.Tensor, torch.Tensor]:
    noise = np.random.default_rng().normal(size=3)  # bug: a fresh generator the seed never reaches
    return torch.zeros(2), torch.from_numpy(noise)


_calls = {"count": 0}


def counter_dependent() -> torch.Tensor:
    _calls["count"] += 1  # bug: hidden state carried between calls
    return torch.ones(2, 2) * _calls["count"]


def test_reproducible_passes_for_seeded_randomness() -> None:
    with process_state_unchanged():
        assert_reproducible(seeded_dropout, runs=3)


def test_reproducible_names_the_output_fed_by_an_unseeded_generator() -> None:
    with process_state_unchanged(), pytest.raises(CheckFailed) as failure:
        assert_reproducible(unseeded_numpy_noise)
    message = str(failure.value)
    assert "unseeded_numpy_noise() is not reproducible: run 2 of 2 differs from run 1 at output[1]" in message
    assert "Mismatched elements: 3 / 3 (100.0%)" in message
    assert "Greatest absolute difference:" in message and "(up to 0 allowed)" in message


def test_reproducible_reports_the_size_of_a_hidden_state_difference() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_reproducible(counter_dependent)
    message = str(failure.value)
    assert "at output (same seed 0" in message
    assert "Greatest absolute difference: 1 at index (0, 0)" in message


def test_reproducible_accepts_differences_within_tolerance() -> None:
    assert_reproducible(counter_dependent, atol=10.0)
