"""Every spelling of dropout runs as the identity under random_ops_at_expected_value:
the equivalence checks rely on it to compare a batch with its parts (issue 24)."""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from torchcheck.checks._stochastic import random_ops_at_expected_value

from ._equivalence_models import DropPath


def output_and_gradient(fn: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor) -> tuple[torch.Tensor, ...]:
    leaf = x.detach().clone().requires_grad_(True)
    out = fn(leaf)
    out = out[0] if isinstance(out, tuple) else out
    (grad,) = torch.autograd.grad((out * torch.arange(out.numel(), device=out.device).reshape(out.shape)).sum(), leaf)
    return out.detach(), grad


Spelling = tuple[Callable[[torch.Tensor], torch.Tensor], Callable[[torch.Tensor], torch.Tensor]]


def spellings(device: torch.device) -> dict[str, Spelling]:
    """name: (with randomness, what it must equal), built on ``device``: on a GPU, LSTM
    dropout runs in cuDNN (which keeps a dropout state of its own) and attention in a
    fused kernel."""
    torch.manual_seed(0)
    lstm = nn.LSTM(4, 4, num_layers=2, dropout=0.5).to(device)
    lstm_without_dropout = copy.deepcopy(lstm)
    lstm_without_dropout.dropout = 0.0
    return {
        "nn.Dropout": (nn.Dropout(0.4).train(), lambda x: x),
        "F.dropout": (lambda x: F.dropout(x, 0.4, training=True), lambda x: x),
        "native_dropout": (lambda x: torch.native_dropout(x, 0.4, True)[0], lambda x: x),
        "drop-path bernoulli_": (DropPath(0.3).train(), lambda x: x),
        "sdpa dropout_p": (
            lambda x: F.scaled_dot_product_attention(x[None], x[None], x[None], dropout_p=0.5)[0],
            lambda x: F.scaled_dot_product_attention(x[None], x[None], x[None])[0],
        ),
        "LSTM dropout": (lambda x: lstm(x)[0], lambda x: lstm_without_dropout(x)[0]),
        "rrelu": (lambda x: F.rrelu(x, training=True), lambda x: F.rrelu(x, training=False)),
        "noise from randn_like": (lambda x: x + 0.1 * torch.randn_like(x), lambda x: x),
    }


@pytest.mark.parametrize("name", list(spellings(torch.device("cpu"))))
def test_each_spelling_of_dropout_is_its_expected_value_forward_and_backward(name: str, torch_device: torch.device) -> None:
    random_fn, expected_fn = spellings(torch_device)[name]
    x = torch.randn(3, 5, 4, generator=torch.Generator().manual_seed(0)).to(torch_device)
    with random_ops_at_expected_value() as record:
        out, grad = output_and_gradient(random_fn, x)
    expected_out, expected_grad = output_and_gradient(expected_fn, x)
    torch.testing.assert_close(out, expected_out)
    torch.testing.assert_close(grad, expected_grad)
    assert record.neutralised
    # cuDNN draws the seed of its dropout state once (an integer draw, left on and named)
    seed_draw = {"aten.random_"} if name == "LSTM dropout" and torch_device.type == "cuda" else set()
    assert set(record.left_on) <= seed_draw, record.left_on


def test_the_record_counts_each_operation_and_leaves_integer_draws_on() -> None:
    x = torch.randn(4, 4)
    with random_ops_at_expected_value() as record:
        F.dropout(F.dropout(x, 0.1), 0.1)
        torch.randint(0, 4, (2,))
        torch.native_dropout(x, 0.1, True)
    assert record.describe_neutralised() == "2 × aten.bernoulli_, 1 × aten.native_dropout"
    assert record.describe_left_on() == "1 × aten.randint"


def test_nothing_is_changed_outside_the_block() -> None:
    with random_ops_at_expected_value():
        pass
    torch.manual_seed(0)
    assert not torch.equal(F.dropout(torch.ones(64), 0.5), torch.ones(64))
