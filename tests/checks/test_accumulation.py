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
