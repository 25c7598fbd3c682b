from __future__ import annotations

import os

import numpy as np
import pytest
import torch

from torchcheck import CheckFailed, assert_reproducible
from torchcheck.checks._compare import UncomparedWarning

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


# ------------------------------------------------------------------ diagnosis

SHARED = torch.Generator()


def shared_generator_noise() -> torch.Tensor:
    return torch.randn(3, generator=SHARED)  # bug: its state carries over from run to run


def test_unseeded_numpy_noise_is_diagnosed_as_random_number_generation() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_reproducible(unseeded_numpy_noise)
    message = str(failure.value)
    assert "Cause: random number generation." in message
    assert "1 numpy.random.default_rng() created without a seed" in message


def test_a_generator_shared_between_runs_is_diagnosed_as_random_number_generation() -> None:
    with process_state_unchanged(), pytest.raises(CheckFailed) as failure:
        assert_reproducible(shared_generator_noise)
    assert "Cause: random number generation." in str(failure.value)
    assert "1 torch.Generator passed as generator=" in str(failure.value)


def test_hidden_state_is_diagnosed_as_values_from_outside_torch() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_reproducible(counter_dependent)
    message = str(failure.value)
    assert "Cause: not random number generation and not a kernel" in message
    assert "aten.mul.Tensor (operation 2 of the run) already receives different inputs" in message


_noisy_kernel = torch.library.Library("torchcheck_tests", "DEF")
_noisy_kernel.define("racy_sum(Tensor x) -> Tensor")


def _racy_sum(x: torch.Tensor) -> torch.Tensor:
    """Like a kernel that accumulates with atomics: the rounding depends on timing."""
    jitter = int.from_bytes(os.urandom(2), "little") * 1e-7
    return x.sum() + torch.tensor(jitter, dtype=x.dtype)


_noisy_kernel.impl("racy_sum", _racy_sum, "CPU")


def reduce_with_racy_kernel() -> torch.Tensor:
    return torch.ops.torchcheck_tests.racy_sum(torch.ones(4)) * 2


def test_a_kernel_with_different_results_for_identical_inputs_is_named() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_reproducible(reduce_with_racy_kernel)
    message = str(failure.value)
    assert "Cause: a nondeterministic kernel." in message
    assert "torchcheck_tests.racy_sum.default (operation 2 of the run) gives different results" in message


# ------------------------------------------------------- structured outputs


class Layer:
    def __init__(self, keys: torch.Tensor) -> None:
        self.keys = keys


class Cache:
    """Like transformers' DynamicCache: no __eq__, tensors in attributes."""

    def __init__(self, keys: torch.Tensor) -> None:
        self.layers = [Layer(keys)]


def cached_output() -> dict[str, object]:
    keys = torch.randn(2, 3)
    return {"logits": keys.sum(), "past_key_values": Cache(keys)}


def test_objects_that_hold_tensors_are_compared_by_their_tensors_not_identity() -> None:
    assert_reproducible(cached_output)


def test_a_difference_inside_a_cache_names_its_attribute_path() -> None:
    calls = {"count": 0}

    def drifting_cache() -> Cache:
        calls["count"] += 1
        return Cache(torch.ones(2, 3) * calls["count"])

    with pytest.raises(CheckFailed, match=r"differs from run 1 at output\.layers\[0\]\.keys"):
        assert_reproducible(drifting_cache)


def test_an_output_that_cannot_be_compared_is_named_in_a_warning() -> None:
    with pytest.warns(UncomparedWarning, match=r"output\['generator'\] \(Generator\)"):
        assert_reproducible(lambda: {"generator": torch.Generator(), "x": torch.ones(1)})
