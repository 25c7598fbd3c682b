"""assert_meta_load on the old hook-based spectral_norm, whose ``weight`` attribute a
forward pre-hook recomputes: on meta after loading, real after the first forward."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from torchcheck import CheckFailed, assert_meta_load


class SpectralNormMlp(nn.Module):
    def __init__(self, unused_layer: bool = False, scale_in_init: bool = False) -> None:
        super().__init__()
        self.hidden = nn.utils.spectral_norm(nn.Linear(4, 8))
        self.head = nn.utils.spectral_norm(nn.Linear(8, 2))
        if unused_layer:
            self.spare = nn.utils.spectral_norm(nn.Linear(8, 8))
        if scale_in_init:
            self.scale = torch.full((2,), 0.5)  # not in the checkpoint: left on meta

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.head(torch.relu(self.hidden(x)))
        return out * self.scale if hasattr(self, "scale") else out


def _checkpoint(model: nn.Module) -> dict[str, torch.Tensor]:
    return {key: value.clone() for key, value in model.state_dict().items()}


def test_a_recomputed_weight_is_checked_after_a_forward() -> None:
    assert_meta_load(SpectralNormMlp, _checkpoint(SpectralNormMlp()), torch.randn(3, 4))


def test_a_recomputed_weight_of_a_layer_the_forward_does_not_call_is_not_reported() -> None:
    make = lambda: SpectralNormMlp(unused_layer=True)  # noqa: E731
    assert_meta_load(make, _checkpoint(make()), torch.randn(3, 4))


def test_without_inputs_recomputed_weights_are_skipped_with_a_warning_naming_them() -> None:
    with pytest.warns(UserWarning, match=r"head\.weight, hidden\.weight\. A forward pre-hook"):
        assert_meta_load(SpectralNormMlp, _checkpoint(SpectralNormMlp()))


def test_a_tensor_attribute_computed_in_init_is_still_reported_beside_spectral_norm() -> None:
    make = lambda: SpectralNormMlp(scale_in_init=True)  # noqa: E731
    with pytest.raises(CheckFailed, match="still on the meta device") as raised:
        assert_meta_load(make, _checkpoint(make()), torch.randn(3, 4))
    assert "tensor attribute scale" in str(raised.value)
    assert "hidden.weight" not in str(raised.value)
