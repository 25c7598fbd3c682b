"""assert_batch_independent on outputs that compare every sample with every other by
design (a contrastive model's similarity logits): the failure names the all-pairs
product, not a reshape, and still judges the model's other outputs."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from torchcheck import CheckFailed, assert_batch_independent

BATCH = 3


class TwoTowers(nn.Module):
    """A CLIP-like contrastive model: each tower embeds its own samples; the logits
    compare every image with every text (``image_embeds @ text_embeds.T``)."""

    def __init__(self, centred_output: bool = False) -> None:
        super().__init__()
        self.images = nn.Linear(6, 5)
        self.texts = nn.Embedding(20, 5)
        self.logit_scale = nn.Parameter(torch.tensor(2.0))
        self.centred_output = centred_output

    def forward(self, pixel_values: torch.Tensor, input_ids: torch.Tensor) -> dict[str, torch.Tensor]:
        image_embeds = self.images(pixel_values)
        text_embeds = self.texts(input_ids).mean(dim=1)
        logits_per_image = self.logit_scale.exp() * image_embeds @ text_embeds.T
        outputs = {
            "logits_per_image": logits_per_image,
            "logits_per_text": logits_per_image.T,
            "image_embeds": image_embeds,
            "text_embeds": text_embeds,
        }
        if self.centred_output:  # a leak beside the logits: every sample minus the batch mean
            outputs["centred_image_embeds"] = image_embeds - image_embeds.mean(dim=0)
        return outputs


class SquareMixing(nn.Module):
    """Mixes samples through a batch mean; its (B, B) output shape is a coincidence."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(4, BATCH)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.linear(x)
        return y - y.mean(dim=0)


def _inputs() -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(0)
    return torch.randn(BATCH, 6, generator=generator), torch.randint(0, 20, (BATCH, 4), generator=generator)


def test_similarity_logits_are_reported_as_an_all_pairs_product_not_a_reshape() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_batch_independent(TwoTowers(), _inputs())
    message = str(failure.value)
    assert f"output `logits_per_image` compares every sample with every other (shape ({BATCH}, {BATCH}) = (B, B))" in message
    assert "`logits_per_text`" in message
    assert "reshape" not in message
    assert "The other outputs do not mix samples" in message


def test_a_leak_beside_the_similarity_logits_is_still_reported_with_its_output() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_batch_independent(TwoTowers(centred_output=True), _inputs())
    message = str(failure.value)
    assert "output `logits_per_image` compares every sample with every other" in message
    assert "The other outputs mix samples too:\n  output `centred_image_embeds`:" in message
    assert "`text_embeds`" not in message


def test_logits_of_a_tower_that_mixes_samples_are_not_called_all_pairs() -> None:
    class LeakyTower(TwoTowers):
        def forward(self, pixel_values: torch.Tensor, input_ids: torch.Tensor) -> dict[str, torch.Tensor]:
            return super().forward(pixel_values - pixel_values.mean(dim=0), input_ids)

    with pytest.raises(CheckFailed) as failure:
        assert_batch_independent(LeakyTower(), _inputs())
    assert "every sample with every other" not in str(failure.value)


def test_a_square_output_that_mixes_through_a_batch_mean_is_not_called_all_pairs() -> None:
    x = torch.randn(BATCH, 4, generator=torch.Generator().manual_seed(0))
    with pytest.raises(CheckFailed) as failure:
        assert_batch_independent(SquareMixing(), x)
    assert "every sample with every other" not in str(failure.value)
    assert "batch-level op" in str(failure.value)
