from __future__ import annotations

import pytest
import torch
from torch import nn

from torchcheck import CheckFailed, assert_batch_independent, assert_gradcheck, assert_gradients_flow

from ._helpers import module_unchanged, process_state_unchanged

# ------------------------------------------------------------------ gradcheck


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx: torch.autograd.function.FunctionCtx, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx: torch.autograd.function.FunctionCtx, grad: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return grad * 3 * x**2


class WrongCube(Cube):
    @staticmethod
    def backward(ctx: torch.autograd.function.FunctionCtx, grad: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return grad * 2 * x**2  # bug: 2 instead of 3


def scaled_cube(scale: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    return scale * WrongCube.apply(x)


def test_gradcheck_passes_a_correct_custom_backward_in_float32() -> None:
    x = torch.randn(4)
    with process_state_unchanged():
        assert_gradcheck(Cube.apply, x, gradgrad=True)


def test_gradcheck_names_the_input_and_the_greatest_jacobian_error() -> None:
    scale = torch.tensor([1.5])
    with pytest.raises(CheckFailed) as failure:
        assert_gradcheck(scaled_cube, scale, torch.tensor([1.0, 2.0, -1.0]))
    message = str(failure.value)
    assert "backward of scaled_cube disagrees with finite differences for input x (shape (3,)" in message
    assert "Mismatched elements: 3 / 9" in message
    # d/dx 1.5 x^3 at x = 2: analytical (wrong) 1.5*2*4 = 12, numerical 1.5*3*4 = 18
    assert "Greatest error at d output[0][1] / d input x[1]: analytical 12, numerical 18" in message


# ------------------------------------------------------------ gradients flow


class TwoLayer(nn.Module):
    def __init__(self, unused: bool = False, detach: bool = False) -> None:
        super().__init__()
        self.encoder = nn.Linear(4, 8)
        self.decoder = nn.Linear(8, 3)
        self.auxiliary = nn.Linear(8, 3)  # used only when correct
        self.unused, self.detach = unused, detach

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.encoder(x))
        if self.detach:
            h = h.detach()  # bug: cuts the encoder off
        out = self.decoder(h)
        return out if self.unused else out + self.auxiliary(h)


class SoftmaxHead(nn.Module):
    """Sum of a softmax is constant: a plain-sum loss would wrongly report zero grads."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x).softmax(-1)


class SqrtAtZero(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sqrt(self.fc(x) * 0)  # bug: sqrt at 0 has an infinite derivative


def test_gradients_flow_passes_a_model_that_uses_every_parameter() -> None:
    model = TwoLayer()
    model.encoder.weight.grad = torch.ones_like(model.encoder.weight)
    x = torch.randn(2, 4)
    with process_state_unchanged(), module_unchanged(model):
        assert_gradients_flow(model, x)


def test_gradients_flow_is_not_fooled_by_a_constant_sum_output() -> None:
    assert_gradients_flow(SoftmaxHead(), torch.randn(3, 4))


def test_gradients_flow_names_the_unused_layer() -> None:
    model = TwoLayer(unused=True)
    with module_unchanged(model), pytest.raises(CheckFailed) as failure:
        assert_gradients_flow(model, torch.randn(2, 4))
    message = str(failure.value)
    assert "2 of 6 parameters with requires_grad got no usable gradient" in message
    assert "no gradient (None)" in message
    assert "    auxiliary.weight\n    auxiliary.bias" in message
    assert "encoder" not in message


def test_gradients_flow_names_the_parameters_cut_off_by_detach() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_gradients_flow(TwoLayer(detach=True), torch.randn(2, 4))
    assert "    encoder.weight\n    encoder.bias" in str(failure.value)


def test_gradients_flow_counts_non_finite_gradients() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_gradients_flow(SqrtAtZero(), torch.randn(2, 4))
    message = str(failure.value)
    assert "non-finite gradient (NaN/Inf)" in message
    assert "    fc.weight (4 NaN, 0 Inf of 4)\n    fc.bias (1 NaN, 0 Inf of 1)" in message


def test_gradients_flow_uses_a_given_loss_function() -> None:
    model = TwoLayer()
    with pytest.raises(CheckFailed) as failure:
        assert_gradients_flow(model, torch.randn(2, 4), loss_fn=lambda out: out[:, 0].sum() * 0)
    assert "all-zero gradient" in str(failure.value) and "(loss_fn)" in str(failure.value)


# ------------------------------------------------------- batch independence


class SequencePool(nn.Module):
    """(batch, time, features) -> (batch, features): a projection, then a mean over time."""

    def __init__(self, mixes_batch: bool = False) -> None:
        super().__init__()
        self.proj = nn.Linear(3, 3)
        self.norm = nn.BatchNorm1d(3)
        self.mixes_batch = mixes_batch

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, time, features = x.shape
        if self.mixes_batch:
            x = x.view(time, batch, features)  # bug: meant x.transpose(0, 1)
        else:
            x = x.transpose(0, 1)
        pooled = self.proj(x).mean(dim=0)
        return self.norm(pooled)


class TokenModel(nn.Module):
    def __init__(self, mixes_batch: bool = False) -> None:
        super().__init__()
        self.embed = nn.Embedding(10, 4)
        self.mixes_batch = mixes_batch

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        h = self.embed(tokens)
        if self.mixes_batch:
            h = h + h.mean(dim=0, keepdim=True)  # bug: batch statistics in eval
        return h.sum(dim=1)


def test_batch_independent_passes_transpose_and_eval_batchnorm() -> None:
    model, x = SequencePool(), torch.randn(4, 5, 3)
    with process_state_unchanged(), module_unchanged(model):
        assert_batch_independent(model, x)
    assert model.training


def test_batch_independent_names_samples_mixed_by_view() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_batch_independent(SequencePool(mixes_batch=True), torch.randn(4, 5, 3))
    message = str(failure.value)
    assert "outputs of SequencePool mix samples along dim 0 (batch of 4)" in message
    assert "output sample 0 depends on input samples 1" in message
    assert "greatest |d out[0] / d input[0]|" in message
    assert "x.transpose(0, 1)" in message


def test_batch_independent_differentiates_through_the_embedding_of_integer_token_inputs() -> None:
    tokens = torch.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    assert_batch_independent(TokenModel(), tokens)
    with pytest.raises(CheckFailed) as failure:
        assert_batch_independent(TokenModel(mixes_batch=True), tokens)
    assert "output sample 0 depends on input samples 1, 2 (greatest |d out[0] / d embedding output of 'embed'|" \
        in str(failure.value)


# ------------------------------------------- gradcheck of module parameters


class WrongWeightGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx: torch.autograd.function.FunctionCtx, x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x, weight)
        return x * weight

    @staticmethod
    def backward(ctx: torch.autograd.function.FunctionCtx, grad: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, weight = ctx.saved_tensors
        return grad * weight, grad * x * 2  # bug: the weight's gradient is doubled


class Scale(nn.Module):
    def __init__(self, wrong: bool = False) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.tensor([0.5, -1.0, 2.0]))
        self.wrong = wrong

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return WrongWeightGrad.apply(x, self.weight) if self.wrong else x * self.weight


class DropoutMLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.drop = nn.Dropout(0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.drop(torch.tanh(self.fc(x)))


def test_gradcheck_of_a_module_checks_its_parameters_in_float64() -> None:
    model, x = Scale(), torch.randn(3)
    with process_state_unchanged(), module_unchanged(model):
        assert_gradcheck(model, x)
    assert model.weight.dtype == torch.float32


def test_gradcheck_names_the_parameter_whose_backward_is_wrong() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_gradcheck(Scale(wrong=True), torch.tensor([1.0, 2.0, 3.0]))
    message = str(failure.value)
    assert "backward of Scale disagrees with finite differences for parameter weight (shape (3,)" in message
    assert "Greatest error at d output[0][2] / d parameter weight[2]: analytical 6, numerical 3" in message


def test_gradcheck_checks_the_parameters_of_a_module_passed_as_an_input() -> None:
    with pytest.raises(CheckFailed, match="for parameter weight of input module "):
        assert_gradcheck(lambda module, x: module(x).sum(), Scale(wrong=True), torch.ones(3))


def test_gradcheck_runs_modules_in_eval_mode_so_dropout_is_off() -> None:
    model = DropoutMLP()
    assert_gradcheck(model, torch.randn(4, 3))
    assert model.training
    with pytest.raises(CheckFailed):
        assert_gradcheck(model, torch.randn(4, 3), train=True)


def test_gradcheck_passes_a_single_dict_input_as_keywords() -> None:
    assert_gradcheck(lambda x, scale: Cube.apply(x) * scale, {"x": torch.randn(3), "scale": torch.tensor(2.0)})


# ------------------------------------------------ zero gradients explained


class ZeroGate(nn.Module):
    """A gated branch whose gate starts at zero (like LoRA's B or a zero-init BN)."""

    def __init__(self, gate: float = 0.0) -> None:
        super().__init__()
        self.branch = nn.Linear(4, 4)
        self.gate = nn.Parameter(torch.full((4,), gate))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.gate * self.branch(x)


def test_a_gradient_zero_only_behind_a_zero_initialised_gate_is_not_a_failure() -> None:
    model, x = ZeroGate(), torch.randn(2, 4)
    with process_state_unchanged(), module_unchanged(model):
        assert_gradients_flow(model, x)


def test_a_gradient_that_stays_zero_is_reported_unless_allowed() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_gradients_flow(TwoLayer(), torch.randn(2, 4), loss_fn=lambda out: out.sum() * 0)
    assert "all-zero gradient, still zero after 3 optimizer steps on a copy" in str(failure.value)
    assert "allow_zero=" in str(failure.value)
    assert_gradients_flow(TwoLayer(), torch.randn(2, 4), loss_fn=lambda out: out.sum() * 0, allow_zero=["*"])


def test_allow_zero_never_excuses_a_missing_gradient() -> None:
    with pytest.raises(CheckFailed, match="no gradient \\(None\\)"):
        assert_gradients_flow(TwoLayer(unused=True), torch.randn(2, 4), allow_zero=["auxiliary.*"])


def test_batch_independent_takes_a_dict_of_keyword_inputs() -> None:
    class Masked(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(10, 4)

        def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
            return (self.embed(tokens) * mask[..., None]).sum(dim=1)

    tokens = torch.tensor([[1, 2], [3, 4], [5, 6]])
    assert_batch_independent(Masked(), {"tokens": tokens, "mask": torch.ones(3, 2)})
    assert_batch_independent(Masked, {"tokens": tokens, "mask": torch.ones(3, 2)})  # a factory works too
