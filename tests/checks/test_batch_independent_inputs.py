"""assert_batch_independent on correct models that are not bit-exact, on integer inputs
that must not be changed (lengths, masks), and on models that raise (issue 24)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from torchcheck import CheckFailed, assert_batch_independent


class TokenMixtureOfExperts(nn.Module):
    """Token ids -> embedding -> top-1 experts over all tokens of the batch at once."""

    def __init__(self, vocab: int = 50, width: int = 16, experts: int = 4) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.gate = nn.Linear(width, experts)
        self.experts = nn.ModuleList(nn.Linear(width, width) for _ in range(experts))

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        x = self.embed(input_ids) * attention_mask[..., None]
        flat = x.reshape(-1, x.shape[-1])
        weight, choice = self.gate(flat).softmax(-1).max(-1)
        out = torch.zeros_like(flat)
        for index, expert in enumerate(self.experts):
            rows = (choice == index).nonzero(as_tuple=True)[0]
            out = out.index_add(0, rows, expert(flat[rows]) * weight[rows, None])
        return out.reshape(x.shape).sum(dim=1)


class BatchMaxShiftedSoftmax(nn.Module):
    """Subtracts the batch's maximum before a softmax, for numerical safety: the
    softmax does not change, but its gradient leaks float rounding across samples."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(6, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        z = self.fc(x)
        return (z - z.max()).softmax(dim=-1)


class PackedLstm(nn.Module):
    """Token ids and their lengths, packed: a length of 0 or above the padded length raises."""

    def __init__(self, vocab: int = 20) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, 4)
        self.lstm = nn.LSTM(4, 4, batch_first=True)

    def forward(self, tokens: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        packed = nn.utils.rnn.pack_padded_sequence(self.embed(tokens), lengths, batch_first=True, enforce_sorted=False)
        _, (hidden, _) = self.lstm(packed)
        return hidden[-1]


class OneHot(nn.Module):
    """Integer inputs without an embedding layer; ``mixes_batch`` plants a batch mean."""

    def __init__(self, classes: int = 5, mixes_batch: bool = False) -> None:
        super().__init__()
        self.classes = classes
        self.fc = nn.Linear(classes, 3)
        self.mixes_batch = mixes_batch

    def forward(self, labels: torch.Tensor) -> torch.Tensor:
        out = self.fc(F.one_hot(labels, self.classes).float())
        return out - out.mean(dim=0) if self.mixes_batch else out


def token_inputs() -> dict[str, torch.Tensor]:
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(1, 50, (4, 6), generator=generator)
    mask = torch.ones_like(ids)
    mask[1, -2:] = 0
    return {"input_ids": ids, "attention_mask": mask}


def test_a_mixture_of_experts_over_the_whole_batch_is_independent_within_rounding() -> None:
    assert_batch_independent(TokenMixtureOfExperts(), token_inputs())


def test_rounding_across_samples_is_within_the_default_tolerance_and_caught_without_it() -> None:
    x = torch.randn(4, 6, generator=torch.Generator().manual_seed(0))
    assert_batch_independent(BatchMaxShiftedSoftmax(), x)
    with pytest.raises(CheckFailed, match=r"Allowed: \|d out\[i\] / d input at another sample\| <= 0 \+ 0 x"):
        assert_batch_independent(BatchMaxShiftedSoftmax(), x, rtol=0.0, atol=0.0)


def test_lengths_and_masks_are_never_changed() -> None:
    tokens = torch.tensor([[3, 4, 5, 0], [6, 7, 0, 0], [8, 9, 10, 11]])
    assert_batch_independent(PackedLstm(), (tokens, torch.tensor([3, 2, 4])))


def test_integer_inputs_without_an_embedding_get_another_samples_values() -> None:
    labels = torch.tensor([0, 1, 2, 4])
    assert_batch_independent(OneHot(), labels)
    with pytest.raises(CheckFailed) as failure:
        assert_batch_independent(OneHot(mixes_batch=True), labels)
    assert "output sample 1 changes when input samples 0, 2, 3 change" in str(failure.value)


def test_an_exception_from_the_model_names_the_call_and_its_inputs() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_batch_independent(OneHot(classes=3), torch.tensor([0, 1, 7]))
    message = str(failure.value)
    assert message.startswith("assert_batch_independent: OneHot raised in the forward on the inputs as given:\n  RuntimeError: ")
    assert "The inputs of that call:\n  input[0]: int64 of shape (3,) = [0, 1, 7]" in message
