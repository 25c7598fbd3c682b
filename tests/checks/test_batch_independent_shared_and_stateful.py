"""assert_batch_independent on embeddings shared by every sample (BART's learned
positions) and on forwards whose cache writes in place break the backward (RWKV)."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from torchcheck import CheckFailed, assert_batch_independent


class SharedPositions(nn.Embedding):
    """Like BART's learned positional embedding: called with the token ids, looks up
    ``arange(seq)`` and returns ``[1, seq, d]`` for all samples."""

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        positions = torch.arange(input_ids.shape[1], device=input_ids.device)
        return super().forward(positions)[None]


class TokensWithSharedPositions(nn.Module):
    def __init__(self, mix_batch: bool = False) -> None:
        super().__init__()
        self.tokens = nn.Embedding(20, 8)
        self.positions = SharedPositions(6, 8)
        self.mix_batch = mix_batch

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        x = self.tokens(input_ids) + self.positions(input_ids)
        return x - x.mean(dim=0) if self.mix_batch else x


class InPlaceState(nn.Module):
    """Like RWKV's eval-mode cache: a state the output depends on is updated in place
    after use, so the backward through the forward raises."""

    def __init__(self, mix_batch: bool = False, refuse_repeats: bool = False) -> None:
        super().__init__()
        self.embed = nn.Embedding(20, 8)
        self.mix_batch = mix_batch
        self.refuse_repeats = refuse_repeats

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        if self.refuse_repeats and bool((input_ids[0] == input_ids[1]).all()):
            raise RuntimeError("samples 0 and 1 are the same")
        x = self.embed(input_ids)
        state = torch.ones_like(x)
        out = x * state
        state.add_(1.0)  # the cache write: the multiplication saved `state` for its backward
        return out - out.mean(dim=0) if self.mix_batch else out


def _ids() -> torch.Tensor:
    return torch.randint(0, 20, (3, 6), generator=torch.Generator().manual_seed(0))


def test_a_positional_embedding_shared_by_all_samples_is_not_a_per_sample_input() -> None:
    assert_batch_independent(TokensWithSharedPositions(), _ids())


def test_mixing_is_still_found_beside_a_shared_positional_embedding() -> None:
    with pytest.raises(CheckFailed, match="mix samples along dim 0"):
        assert_batch_independent(TokensWithSharedPositions(mix_batch=True), _ids())


def test_a_backward_broken_by_an_in_place_cache_falls_back_to_changing_samples() -> None:
    assert_batch_independent(InPlaceState(), _ids())


def test_the_fallback_after_a_broken_backward_still_finds_mixing() -> None:
    with pytest.raises(CheckFailed, match="changes when input samples") as raised:
        assert_batch_independent(InPlaceState(mix_batch=True), _ids())
    assert "backward" not in str(raised.value)


def test_when_the_fallback_raises_too_both_errors_are_reported() -> None:
    with pytest.raises(CheckFailed) as raised:
        assert_batch_independent(InPlaceState(refuse_repeats=True), _ids())
    message = str(raised.value)
    assert "samples 0 and 1 are the same" in message
    assert "because the backward through the model raised" in message
    assert "modified by an inplace operation" in message
