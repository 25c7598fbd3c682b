from __future__ import annotations

from typing import Any

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from torchcheck import CheckFailed, assert_accumulation_equivalent
from torchcheck.checks.accumulation import split_batch

from ._helpers import process_state_unchanged

Batch = tuple[torch.Tensor, torch.Tensor]


def mlp() -> nn.Module:
    return nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))


def mlp_with_batch_norm() -> nn.Module:
    return nn.Sequential(nn.Linear(4, 16), nn.BatchNorm1d(16), nn.Tanh(), nn.Linear(16, 1))


def sgd(model: nn.Module) -> torch.optim.Optimizer:
    return torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)


def regression_batch(size: int = 8) -> Batch:
    generator = torch.Generator().manual_seed(0)
    return torch.randn(size, 4, generator=generator), torch.randn(size, 1, generator=generator)


def accumulating_loop(model: nn.Module, optimizer: torch.optim.Optimizer, micro_batches: list[Batch], steps: int) -> None:
    model.train()
    optimizer.zero_grad()
    for x, y in micro_batches:
        (F.mse_loss(model(x), y) / steps).backward()
    optimizer.step()


def undivided_loss(model: nn.Module, optimizer: torch.optim.Optimizer, micro_batches: list[Batch], steps: int) -> None:
    optimizer.zero_grad()
    for x, y in micro_batches:
        F.mse_loss(model(x), y).backward()  # bug: not divided by steps
    optimizer.step()


def zero_grad_every_micro_batch(
    model: nn.Module, optimizer: torch.optim.Optimizer, micro_batches: list[Batch], steps: int
) -> None:
    for x, y in micro_batches:
        optimizer.zero_grad()  # bug: throws away the earlier micro-batches
        (F.mse_loss(model(x), y) / steps).backward()
    optimizer.step()


def step_every_micro_batch(
    model: nn.Module, optimizer: torch.optim.Optimizer, micro_batches: list[Batch], steps: int
) -> None:
    for x, y in micro_batches:
        optimizer.zero_grad()
        (F.mse_loss(model(x), y) / steps).backward()
        optimizer.step()  # bug: steps on every micro-batch


def failure_message(train_fn: Any, make_model: Any = mlp, steps: int = 4) -> str:
    with process_state_unchanged(), pytest.raises(CheckFailed) as failure:
        assert_accumulation_equivalent(make_model, sgd, train_fn, regression_batch(), accumulation_steps=steps)
    return str(failure.value)


def test_a_correct_accumulating_loop_equals_the_whole_batch_step() -> None:
    with process_state_unchanged():
        assert_accumulation_equivalent(mlp, sgd, accumulating_loop, regression_batch(), accumulation_steps=4)


def test_a_model_instance_is_copied_for_each_run() -> None:
    model = mlp()
    before = [p.detach().clone() for p in model.parameters()]
    assert_accumulation_equivalent(model, sgd, accumulating_loop, regression_batch(), accumulation_steps=2)
    assert all(torch.equal(p, b) for p, b in zip(model.parameters(), before))


def test_a_loss_not_divided_by_the_accumulation_steps_is_named_with_the_update_ratio() -> None:
    message = failure_message(undivided_loss)
    assert message.startswith(
        "assert_accumulation_equivalent: one optimizer step over 4 accumulated micro-batches of 2 differs from "
        "one step over the whole batch of 8, at parameter '0.weight':"
    )
    assert "Greatest absolute difference:" in message
    assert "Cause: the loss is not divided by accumulation_steps. The accumulated update is 4 times the " \
        "whole-batch update (cosine 1.0000)" in message


def test_zero_grad_on_every_micro_batch_is_named() -> None:
    message = failure_message(zero_grad_every_micro_batch)
    assert "Cause: gradients are zeroed on every micro-batch. The update equals one step on the last " \
        "micro-batch alone (cosine 1.0000, 0.25 times its size;" in message


def test_a_step_on_every_micro_batch_is_named_with_the_step_count() -> None:
    message = failure_message(step_every_micro_batch)
    assert message.startswith(
        "assert_accumulation_equivalent: step_every_micro_batch stepped the optimizer 4 times during the step "
        "over 4 micro-batches; it must make exactly one optimizer step"
    )
    assert "It steps once per micro-batch." in message


def test_batch_norm_in_train_mode_is_named_as_the_cause() -> None:
    message = failure_message(accumulating_loop, make_model=mlp_with_batch_norm)
    assert "Cause: batch-statistics layers in train mode: '1' normalise each micro-batch of 2 with its own " \
        "mean and variance, not the batch of 8's" in message


def test_batch_norm_in_eval_mode_accumulates_exactly() -> None:
    def eval_norm_loop(model: nn.Module, optimizer: torch.optim.Optimizer, micro_batches: list[Batch], steps: int) -> None:
        model.train()
        model[1].eval()
        optimizer.zero_grad()
        for x, y in micro_batches:
            (F.mse_loss(model(x), y) / steps).backward()
        optimizer.step()

    assert_accumulation_equivalent(mlp_with_batch_norm, sgd, eval_norm_loop, regression_batch(), accumulation_steps=2)


def with_dropout() -> nn.Module:
    return nn.Sequential(nn.Linear(4, 16), nn.Dropout(0.5), nn.Linear(16, 16), nn.Dropout(0.5), nn.Linear(16, 1))


def test_a_correct_loop_over_a_model_with_dropout_passes_with_dropout_switched_off() -> None:
    assert_accumulation_equivalent(with_dropout, sgd, accumulating_loop, regression_batch(), accumulation_steps=2)


def test_a_loop_bug_is_still_caught_in_a_model_with_dropout() -> None:
    message = failure_message(undivided_loss, with_dropout)
    assert "Cause: the loss is not divided by accumulation_steps" in message


def test_dropout_rates_are_put_back_after_the_check() -> None:
    model = with_dropout()
    assert_accumulation_equivalent(model, sgd, accumulating_loop, regression_batch(), accumulation_steps=2)
    assert [layer.p for layer in model.modules() if isinstance(layer, nn.Dropout)] == [0.5, 0.5]


def test_a_tiny_transformers_model_with_a_dict_batch_accumulates_exactly() -> None:
    from ._tiny_hf import tiny_gpt2, token_batch

    def hf_loop(model: nn.Module, optimizer: torch.optim.Optimizer, micro_batches: list[dict[str, torch.Tensor]], steps: int) -> None:
        model.train()
        optimizer.zero_grad()
        for micro_batch in micro_batches:
            (model(**micro_batch).loss / steps).backward()
        optimizer.step()

    def adamw(model: nn.Module) -> torch.optim.Optimizer:
        return torch.optim.AdamW(model.parameters(), lr=1e-3)

    with process_state_unchanged():
        assert_accumulation_equivalent(tiny_gpt2, adamw, hf_loop, token_batch(batch_size=4), accumulation_steps=2)


def test_split_batch_splits_tensors_tuples_and_dicts_along_the_first_dimension() -> None:
    x, y = torch.arange(8).reshape(4, 2), torch.arange(4)
    parts = split_batch({"pair": (x, y), "scale": 2.0, "step": torch.tensor(3)}, 2)
    assert len(parts) == 2
    assert torch.equal(parts[1]["pair"][0], x[2:]) and torch.equal(parts[1]["pair"][1], y[2:])
    assert parts[0]["scale"] == 2.0 and int(parts[0]["step"]) == 3


def test_a_batch_that_does_not_split_evenly_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="the batch of 8 does not split into 3 equal micro-batches"):
        assert_accumulation_equivalent(mlp, sgd, accumulating_loop, regression_batch(), accumulation_steps=3)


def test_tensors_with_different_batch_sizes_are_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"batch\[1\] has 3 rows while batch\[0\] has 8"):
        assert_accumulation_equivalent(
            mlp, sgd, accumulating_loop, (torch.ones(8, 4), torch.ones(3, 1)), accumulation_steps=2
        )


def test_fewer_than_two_accumulation_steps_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="accumulation_steps must be an integer of at least 2, got 1"):
        assert_accumulation_equivalent(mlp, sgd, accumulating_loop, regression_batch(), accumulation_steps=1)


# ------------------------------------------- randomness wherever it is spelled (issue 24)

from . import _equivalence_models as models  # noqa: E402


@pytest.mark.parametrize(
    "make_model",
    [models.FunctionalDropout, models.ResidualWithDropPath, models.LstmWithDropout, models.AttentionDropout],
    ids=["functional-dropout", "drop-path-bernoulli", "lstm-dropout", "sdpa-dropout-p"],
)
def test_randomness_spelled_without_nn_dropout_is_switched_off(make_model: Any) -> None:
    with process_state_unchanged():
        assert_accumulation_equivalent(make_model, sgd, accumulating_loop, regression_batch(), accumulation_steps=2)


def hf_loop(model: nn.Module, optimizer: torch.optim.Optimizer, micro_batches: list[Any], steps: int) -> None:
    model.train()
    optimizer.zero_grad()
    for micro_batch in micro_batches:
        (model(**micro_batch).loss / steps).backward()
    optimizer.step()


def hf_undivided(model: nn.Module, optimizer: torch.optim.Optimizer, micro_batches: list[Any], steps: int) -> None:
    model.train()
    optimizer.zero_grad()
    for micro_batch in micro_batches:
        model(**micro_batch).loss.backward()  # bug: not divided by steps
    optimizer.step()


@pytest.mark.parametrize("name", ["tiny_t5_with_dropout", "tiny_llama_with_attention_dropout"])
def test_transformers_models_with_attention_and_hidden_dropout_accumulate_exactly(name: str) -> None:
    from ._tiny_hf import token_batch

    batch = token_batch(batch_size=4)
    if name.startswith("tiny_t5"):
        batch["decoder_input_ids"] = batch["input_ids"].clone()
    assert_accumulation_equivalent(getattr(models, name), sgd, hf_loop, batch, accumulation_steps=2)


def test_a_loop_bug_in_a_transformers_model_with_dropout_names_what_was_switched_off() -> None:
    from ._tiny_hf import token_batch

    batch = {**token_batch(batch_size=4)}
    batch["decoder_input_ids"] = batch["input_ids"].clone()
    with pytest.raises(CheckFailed) as failure:
        assert_accumulation_equivalent(models.tiny_t5_with_dropout, sgd, hf_undivided, batch, accumulation_steps=2)
    message = str(failure.value)
    assert "Cause: the loss is not divided by accumulation_steps" in message
    assert "Switched off during the comparison (replaced by their expected value, so dropout is the identity): " \
        in message
    assert "× aten.bernoulli_" in message


def test_a_loop_bug_in_a_model_with_drop_path_is_caught_and_the_draws_are_named() -> None:
    message = failure_message(undivided_loss, models.ResidualWithDropPath)
    assert "Cause: the loss is not divided by accumulation_steps" in message
    assert "Switched off during the comparison (replaced by their expected value, so dropout is the identity): " \
        "2 × aten.bernoulli_." in message


class RandomTokenMasking(nn.Module):
    """Masks random features (one mask per forward) with randint, an integer draw with
    no expected value."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        keep = torch.randint(0, 2, x.shape[-1:]) if self.training else torch.ones_like(x)
        return self.fc(x * keep)


def test_integer_draws_left_on_are_named_as_the_cause() -> None:
    message = failure_message(accumulating_loop, RandomTokenMasking, steps=2)
    assert "Cause: random integers drawn during training (1 × aten.randint)" in message
    assert "Left on (integer draws have no expected value to use): 1 × aten.randint" in message


# ------------------------------------------- forwards with side effects, coupled terms


@pytest.mark.parametrize("make_model", [models.hook_spectral_norm, models.parametrized_spectral_norm],
                         ids=["hook-spectral-norm", "parametrized-spectral-norm"])
def test_spectral_norm_power_iteration_is_one_update_per_step_in_both_runs(make_model: Any) -> None:
    model = make_model()
    with process_state_unchanged():
        assert_accumulation_equivalent(model, sgd, accumulating_loop, regression_batch(), accumulation_steps=4)


def test_a_buffer_every_forward_updates_from_its_data_is_named() -> None:
    message = failure_message(accumulating_loop, models.DataEma, steps=2)
    assert "at buffer 'average'" in message
    assert "Cause: 'average' of the model is updated by every forward from the samples it sees: one step over " \
        "the batch updates it from all 8, the accumulated step from each micro-batch of 4" in message
    assert "check that the loss is divided" not in message.lower()


def moe_loop(model: nn.Module, optimizer: torch.optim.Optimizer, micro_batches: list[Batch], steps: int) -> None:
    model.train()
    optimizer.zero_grad()
    for x, y in micro_batches:
        (models.moe_loss(model, x, y) / steps).backward()
    optimizer.step()


def test_a_routers_load_balancing_loss_is_named_as_a_batch_coupled_term() -> None:
    message = failure_message(moe_loop, models.MixtureOfExperts, steps=2)
    assert "Cause: a term computed in the forward couples the samples of a batch" in message
    assert "aux_loss of 'router': " in message and "on the whole batch;" in message
    assert "batch_coupled=('router',)" in message
    assert "loss is divided" not in message


@pytest.mark.parametrize(
    "batch_coupled",
    [("aux_loss",), ("router",), lambda model: model.router.register_forward_hook(zero_aux_loss)],
    ids=["term-name", "module-path", "function"],
)
def test_a_declared_batch_coupled_term_is_left_out_of_both_runs(batch_coupled: Any) -> None:
    with process_state_unchanged():
        assert_accumulation_equivalent(
            models.MixtureOfExperts, sgd, moe_loop, regression_batch(), accumulation_steps=2,
            batch_coupled=batch_coupled,
        )


def zero_aux_loss(router: nn.Module, _inputs: Any, _output: Any) -> None:
    router.aux_loss = router.aux_loss * 0


def test_a_loop_bug_is_still_caught_with_a_declared_batch_coupled_term() -> None:
    def undivided_moe(model: nn.Module, optimizer: torch.optim.Optimizer, micro_batches: list[Batch], _: int) -> None:
        optimizer.zero_grad()
        for x, y in micro_batches:
            models.moe_loss(model, x, y).backward()  # bug: not divided
        optimizer.step()

    with pytest.raises(CheckFailed) as failure:
        assert_accumulation_equivalent(
            models.MixtureOfExperts, sgd, undivided_moe, regression_batch(), accumulation_steps=2,
            batch_coupled=("aux_loss",),
        )
    assert "Cause: the loss is not divided by accumulation_steps" in str(failure.value)
    assert "Declared batch-coupled and multiplied by zero: aux_loss of 'router'." in str(failure.value)


# ------------------------------------- gradients that are rounding noise (key bias, Adam)


class TinyAttention(nn.Module):
    """One attention head with its own key bias: softmax over the keys ignores a constant
    added to every key logit of a query, so the key bias's true gradient is zero and its
    float32 gradient rounding noise."""

    def __init__(self) -> None:
        super().__init__()
        self.query = nn.Linear(4, 8)
        self.key = nn.Linear(4, 8)
        self.value = nn.Linear(4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        tokens = x[:, None, :] * torch.linspace(0.5, 1.5, 6)[:, None]
        logits = self.query(tokens) @ self.key(tokens).transpose(1, 2)
        return (logits.softmax(-1) @ self.value(tokens)).mean(1)


def adamw(model: nn.Module) -> torch.optim.Optimizer:
    return torch.optim.AdamW(model.parameters(), lr=0.1)


def test_a_key_bias_whose_gradient_is_rounding_noise_does_not_fail_under_adamw() -> None:
    with process_state_unchanged():
        assert_accumulation_equivalent(
            TinyAttention, adamw, accumulating_loop, regression_batch(), accumulation_steps=4
        )


def test_a_loop_bug_under_adamw_is_still_caught_beside_a_noise_level_key_bias() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_accumulation_equivalent(
            TinyAttention, adamw, zero_grad_every_micro_batch, regression_batch(), accumulation_steps=4
        )
    message = str(failure.value)
    assert "Cause: gradients are zeroed on every micro-batch." in message
    assert "'key.bias'" not in message.splitlines()[0]
    assert "Compared on their gradients instead of the step: 8 element(s) whose gradient is rounding noise" in message


def test_a_step_that_differs_with_agreeing_gradients_does_not_blame_the_loss_division() -> None:
    def lr_scaled_by_steps(
        model: nn.Module, optimizer: torch.optim.Optimizer, micro_batches: list[Batch], steps: int
    ) -> None:
        for group in optimizer.param_groups:
            group["lr"] *= steps  # bug: the step, not the gradients, depends on the micro-batch count
        accumulating_loop(model, optimizer, micro_batches, steps)

    message = failure_message(lr_scaled_by_steps)
    assert "Cause: the optimizer step, not the accumulation. The accumulated gradients equal the whole-batch " \
        "gradients" in message
    assert "divided" not in message
