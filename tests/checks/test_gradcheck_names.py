"""assert_gradcheck names inputs by the argument names of the forward's signature, and
outputs by their path, also where torch's own message numbers them."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from torchcheck import CheckFailed, assert_gradcheck


class WrongSquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, features):  # type: ignore[no-untyped-def]
        ctx.save_for_backward(features)
        return features * features

    @staticmethod
    def backward(ctx, grad):  # type: ignore[no-untyped-def]
        (features,) = ctx.saved_tensors
        return 3 * features * grad  # bug: the derivative is 2 * features


class ScaledSquare(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(3))

    def forward(self, features: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        return scale * WrongSquare.apply(features) + self.bias


def test_an_autograd_function_input_is_named_by_its_forward_argument() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_gradcheck(WrongSquare.apply, torch.tensor([1.0, 2.0]))
    assert "disagrees with finite differences for input features (shape (2,)" in str(failure.value)


def test_a_module_input_is_named_by_its_forward_argument_and_others_stay_correct() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_gradcheck(ScaledSquare(), torch.tensor([1.0, 2.0, 3.0]), torch.tensor([2.0]))
    message = str(failure.value)
    assert "disagrees with finite differences for input features (shape (3,)" in message
    assert "/ d input features[" in message


def test_an_argument_behind_star_args_is_named_by_its_position() -> None:
    def varargs(*tensors: torch.Tensor) -> torch.Tensor:
        return WrongSquare.apply(tensors[0])

    with pytest.raises(CheckFailed, match=r"for input\[0\] \(shape"):
        assert_gradcheck(varargs, torch.tensor([1.0, 2.0]))


def two_heads(features: torch.Tensor, scale: torch.Tensor) -> dict[str, torch.Tensor]:
    """Too many outputs for a dense Jacobian in the message: torch's own message is shown."""
    return {"plain": features * scale, "tiled": (scale * WrongSquare.apply(features)).repeat(400)}


def test_torch_own_mismatch_message_names_the_output_path_and_the_argument() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_gradcheck(two_heads, torch.rand(30) + 0.5, torch.tensor([1.5]), fast_mode=True)
    message = str(failure.value)
    assert "Jacobian mismatch for output['tiled'] with respect to input features in fast mode" in message


def test_torch_message_under_the_dense_jacobian_names_the_argument_too() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_gradcheck(ScaledSquare(), torch.tensor([1.0, 2.0, 3.0]), torch.tensor([2.0]))
    assert "torch.autograd.gradcheck: Jacobian mismatch for output with respect to input features," in str(
        failure.value
    )
