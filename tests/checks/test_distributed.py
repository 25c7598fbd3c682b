"""assert_data_parallel_equivalent and assert_sharded_checkpoint_roundtrip on real ranks.

Called from this single process, each check forks its own CPU ranks with a gloo process
group; the tests marked ``distributed`` call them on the plugin's ranks instead (in
place). Every planted bug sits next to its fix, and each must be caught with its cause.
"""

from __future__ import annotations

from typing import Any

import pytest
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from torchcheck import CheckFailed, assert_data_parallel_equivalent, assert_sharded_checkpoint_roundtrip

from ._helpers import process_state_unchanged

Batch = tuple[torch.Tensor, torch.Tensor]
GLOBAL_BATCH = 8
STEPS = 3


def classification_data(samples: int = GLOBAL_BATCH * STEPS) -> Batch:
    generator = torch.Generator().manual_seed(0)
    return torch.randn(samples, 6, generator=generator), torch.randint(0, 3, (samples,), generator=generator)


def global_batches() -> list[Batch]:
    inputs, labels = classification_data()
    return [(inputs[i : i + GLOBAL_BATCH], labels[i : i + GLOBAL_BATCH]) for i in range(0, len(inputs), GLOBAL_BATCH)]


def mlp() -> nn.Module:
    return nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))


def mlp_with_batch_norm() -> nn.Module:
    return nn.Sequential(nn.Linear(6, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 3))


class WithUnusedHead(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(6, 3)
        self.old_head = nn.Linear(6, 3)  # bug: left over, never called

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x)


class WithGatedBranch(nn.Module):
    """The gate is used only for batches whose first sample's first feature is positive."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(6, 3)
        self.gate = nn.Linear(6, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.body(x)
        return out + self.gate(x) if x[0, 0] > 0 else out  # bug: unused on some ranks


def sgd(model: nn.Module) -> torch.optim.Optimizer:
    return torch.optim.SGD(model.parameters(), lr=0.1)


def adamw_with_schedule(model: nn.Module) -> tuple[torch.optim.Optimizer, Any]:
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    return optimizer, torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)


def train_step(model: nn.Module, optimizer: torch.optim.Optimizer, batch: Batch) -> torch.Tensor:
    inputs, labels = batch
    optimizer.zero_grad()
    loss = F.cross_entropy(model(inputs), labels)
    loss.backward()
    optimizer.step()
    return loss.detach()


def summed_loss_step(model: nn.Module, optimizer: torch.optim.Optimizer, batch: Batch) -> torch.Tensor:
    inputs, labels = batch
    optimizer.zero_grad()
    loss = F.cross_entropy(model(inputs), labels, reduction="sum")  # bug: DDP averages over ranks
    loss.backward()
    optimizer.step()
    return loss.detach()


def unwrapping_step(model: nn.Module, optimizer: torch.optim.Optimizer, batch: Batch) -> torch.Tensor:
    inputs, labels = batch
    network = getattr(model, "module", model)  # bug: the forward skips DDP's gradient hooks
    optimizer.zero_grad()
    loss = F.cross_entropy(network(inputs), labels)
    loss.backward()
    optimizer.step()
    return loss.detach()


def sampled_batches(rank: int, world_size: int) -> list[Batch]:
    """One rank's batches from a DataLoader with a DistributedSampler (the fix)."""
    dataset = TensorDataset(*classification_data())
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=False)
    return list(DataLoader(dataset, batch_size=GLOBAL_BATCH // world_size, sampler=sampler))


def unsampled_batches(rank: int, world_size: int) -> list[Batch]:
    dataset = TensorDataset(*classification_data())
    return list(DataLoader(dataset, batch_size=GLOBAL_BATCH // world_size))  # bug: no sampler


# ------------------------------------------------------------ data parallel


@pytest.mark.parametrize("strategy", ["ddp", "fsdp"])
def test_data_parallel_training_equals_single_process_training(strategy: str) -> None:
    with process_state_unchanged():
        assert_data_parallel_equivalent(mlp, adamw_with_schedule, train_step, global_batches(), strategy=strategy)


def test_a_model_with_dropout_trains_alike_with_its_dropout_switched_off() -> None:
    def mlp_with_dropout() -> nn.Module:
        return nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 3))

    assert_data_parallel_equivalent(mlp_with_dropout, sgd, train_step, global_batches())


def test_dict_batches_are_sharded_value_by_value() -> None:
    def dict_step(model: nn.Module, optimizer: torch.optim.Optimizer, batch: dict[str, torch.Tensor]) -> None:
        # a shard of 4 on each rank, the global batch of 8 in the single-process run
        assert len(batch["inputs"]) == len(batch["labels"]) in (GLOBAL_BATCH // 2, GLOBAL_BATCH)
        train_step(model, optimizer, (batch["inputs"], batch["labels"]))

    batches = [{"inputs": inputs, "labels": labels} for inputs, labels in global_batches()]
    assert_data_parallel_equivalent(mlp, sgd, dict_step, batches)


@pytest.mark.parametrize("strategy", ["ddp", "fsdp"])
def test_plain_batch_norm_is_caught_and_named_as_the_cause(strategy: str) -> None:
    with process_state_unchanged(), pytest.raises(CheckFailed) as failure:
        assert_data_parallel_equivalent(mlp_with_batch_norm, sgd, train_step, global_batches(), strategy=strategy)
    message = str(failure.value)
    assert "after step 1 of 3, at parameter '0.weight'" in message
    assert "Cause: BatchNorm without SyncBatchNorm: '1' normalise each rank's shard of 4 samples" in message
    assert "convert_sync_batchnorm" in message


@pytest.mark.distributed(world_size=2)
@pytest.mark.devices("cuda")
def test_sync_batch_norm_makes_batch_norm_equivalent_on_gpus(torch_device: torch.device) -> None:
    def synced_model() -> nn.Module:
        return nn.SyncBatchNorm.convert_sync_batchnorm(mlp_with_batch_norm())

    assert_data_parallel_equivalent(synced_model, sgd, train_step, global_batches())


def test_sync_batch_norm_on_cpu_ranks_is_a_clear_error() -> None:
    def synced_model() -> nn.Module:
        return nn.SyncBatchNorm.convert_sync_batchnorm(mlp_with_batch_norm())

    with pytest.raises(ValueError, match=r"SyncBatchNorm layers \('1'\), which run only on GPUs"):
        assert_data_parallel_equivalent(synced_model, sgd, train_step, global_batches())


@pytest.mark.parametrize("strategy", ["ddp", "fsdp"])
def test_a_summed_loss_is_caught_as_a_factor_of_world_size(strategy: str) -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_data_parallel_equivalent(mlp, sgd, summed_loss_step, global_batches(), strategy=strategy)
    message = str(failure.value)
    assert "Cause: a loss summed over samples instead of averaged" in message
    assert "the distributed gradient is 0.5 times the single-process one" in message


def test_a_summed_loss_at_world_size_four_is_a_quarter_of_the_gradient() -> None:
    with pytest.raises(CheckFailed, match="the distributed gradient is 0.25 times"):
        assert_data_parallel_equivalent(mlp, sgd, summed_loss_step, global_batches(), world_size=4)


def test_an_unused_parameter_is_named_when_ddp_fails_on_the_next_step() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_data_parallel_equivalent(WithUnusedHead, sgd, train_step, global_batches())
    message = str(failure.value)
    assert "train_step raised on rank 0 at step 2 of training with DDP" in message
    assert "Cause: unused parameters: 'old_head.bias', 'old_head.weight' got no gradient at step 1" in message


def test_a_parameter_unused_on_one_rank_is_named_instead_of_hanging() -> None:
    inputs, labels = classification_data()
    inputs[0::4, 0] = 1.0  # the first sample of rank 0's shards: the gate is used
    inputs[4::8, 0] = -1.0  # the first sample of rank 1's shards: it is not
    batches = [(inputs[i : i + GLOBAL_BATCH], labels[i : i + GLOBAL_BATCH]) for i in range(0, 24, GLOBAL_BATCH)]
    with pytest.raises(CheckFailed) as failure:
        assert_data_parallel_equivalent(WithGatedBranch, sgd, train_step, batches)
    message = str(failure.value)
    assert "rank 1 computed no gradient for 'gate.bias', 'gate.weight' at step 1" in message
    assert "Cause: a parameter unused on some ranks" in message


class Float32Only(nn.Module):
    """Casts its input to float32 itself, so it cannot run in float64."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(6, 3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.float() @ self.weight  # a float64 weight cannot multiply a float32 input


def test_a_model_that_cannot_run_in_float64_is_compared_in_its_own_precision() -> None:
    assert_data_parallel_equivalent(Float32Only, sgd, train_step, global_batches())
    with pytest.raises(CheckFailed) as failure:
        assert_data_parallel_equivalent(Float32Only, sgd, summed_loss_step, global_batches())
    message = str(failure.value)
    assert "Cause: a loss summed over samples instead of averaged" in message
    assert "Note: both runs trained in the model's own precision, since in float64 summed_loss_step raised" in message


@pytest.mark.parametrize("strategy", ["ddp", "fsdp"])
def test_a_distributed_sampler_shards_the_data_correctly(strategy: str) -> None:
    assert_data_parallel_equivalent(mlp, sgd, train_step, sampled_batches, strategy=strategy)


def test_data_without_a_distributed_sampler_is_caught_as_not_sharded() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_data_parallel_equivalent(mlp, sgd, train_step, unsampled_batches)
    message = str(failure.value)
    assert "gave the ranks 6 batches, and batches(0, 1), the single-process run, 3" in message
    assert "Cause: the data is not sharded" in message
    assert "DistributedSampler(dataset, num_replicas=world_size, rank=rank)" in message


def test_every_rank_getting_the_global_batches_is_caught_as_not_sharded() -> None:
    with pytest.raises(CheckFailed, match="gave every one of the 2 ranks the same batch at step 1"):
        assert_data_parallel_equivalent(mlp, sgd, train_step, lambda rank, world_size: global_batches())


def test_a_forward_that_bypasses_the_ddp_wrapper_is_caught() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_data_parallel_equivalent(mlp, sgd, unwrapping_step, global_batches())
    assert "Cause: after step 1 the ranks hold different parameters ('0.weight' first)" in str(failure.value)


@pytest.mark.distributed(world_size=2)
def test_global_batches_that_differ_between_ranks_are_named_as_the_cause(rank: int) -> None:
    """Each rank drawing its batches from its own random state (fresh processes that were
    never seeded alike) fails every comparison; the message names the data, not the model."""
    generator = torch.Generator().manual_seed(rank)  # bug: the global batches depend on the rank
    batches = [(torch.randn(GLOBAL_BATCH, 6, generator=generator), torch.zeros(GLOBAL_BATCH, dtype=torch.long))]
    with pytest.raises(CheckFailed) as failure:
        assert_data_parallel_equivalent(mlp, sgd, train_step, batches)
    assert "the ranks were given different global batches: the global batch differs between ranks 0 and 1 at step 1" in str(
        failure.value
    )
    fixed = torch.Generator().manual_seed(0)  # the fix: every rank draws the same numbers
    batches = [(torch.randn(GLOBAL_BATCH, 6, generator=fixed), torch.zeros(GLOBAL_BATCH, dtype=torch.long))]
    assert_data_parallel_equivalent(mlp, sgd, train_step, batches)


class BatchCentered(nn.Module):
    """Centres every feature over the batch: a batch statistic no BatchNorm announces."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x - x.mean(dim=0, keepdim=True)  # bug under data parallelism: each rank centres its own shard


def mlp_with_batch_centering() -> nn.Module:
    return nn.Sequential(nn.Linear(6, 16), BatchCentered(), nn.ReLU(), nn.Linear(16, 3))


def test_a_difference_without_a_named_cause_says_where_it_starts() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_data_parallel_equivalent(mlp_with_batch_centering, sgd, train_step, global_batches())
    message = str(failure.value)
    assert "Check that the loss is a mean over each rank's samples" in message
    assert "Where it starts (forward): module '1' (BatchCentered), call 1 of 1: inputs agree, output differs" in message
    assert "return x - x.mean(dim=0, keepdim=True)" in message  # the first op that differs, with its line
    assert "Compared: shard 1 of 2 with rows 0:4 of the whole batch's forward" in message


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"strategy": "zero"}, "strategy must be one of 'ddp', 'fsdp', got 'zero'"),
        ({"world_size": 0}, "world_size must be a positive integer, got 0"),
        ({"world_size": 3}, "global batch 1 has 8 samples, which do not split into 3 equal shards"),
        ({"batches": []}, "batches must be a non-empty list of global batches"),
    ],
)
def test_bad_arguments_are_clear_errors(arguments: dict[str, Any], message: str) -> None:
    call: dict[str, Any] = {"batches": global_batches(), **arguments}
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        assert_data_parallel_equivalent(mlp, sgd, train_step, **call)


@pytest.mark.distributed(world_size=2)
def test_the_check_runs_in_place_on_the_ranks_of_a_distributed_test(rank: int) -> None:
    assert dist.get_world_size() == 2
    assert_data_parallel_equivalent(mlp, sgd, train_step, global_batches())
    with pytest.raises(CheckFailed, match="Cause: a loss summed over samples"):
        assert_data_parallel_equivalent(mlp, sgd, summed_loss_step, global_batches(), strategy="fsdp")


# --------------------------------------------------------- sharded checkpoint


class ResetsHeadOnLoad(nn.Module):
    """Zeroes its head after every load (a leftover "re-initialise on load" hook)."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(6, 8)
        self.head = nn.Linear(8, 3)
        self.register_load_state_dict_post_hook(self._reset_head)

    @staticmethod
    def _reset_head(module: nn.Module, incompatible_keys: Any) -> None:
        with torch.no_grad():
            module.head.weight.zero_()  # bug: the loaded weights are thrown away

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x).relu())


def adamw(model: nn.Module) -> torch.optim.Optimizer:
    return torch.optim.AdamW(model.parameters(), lr=1e-2)


def adamw_forgetting_its_state(model: nn.Module) -> torch.optim.Optimizer:
    optimizer = adamw(model)
    optimizer.register_load_state_dict_post_hook(lambda loaded: loaded.state.clear())  # bug
    return optimizer


@pytest.mark.parametrize(("save_world_size", "load_world_size"), [(2, 1), (1, 2)])
def test_an_fsdp_checkpoint_reshards_between_world_sizes(save_world_size: int, load_world_size: int) -> None:
    with process_state_unchanged():
        assert_sharded_checkpoint_roundtrip(
            mlp, adamw, save_world_size=save_world_size, load_world_size=load_world_size
        )


def test_a_ddp_checkpoint_loads_at_another_world_size() -> None:
    assert_sharded_checkpoint_roundtrip(mlp, adamw, strategy="ddp")


def test_a_model_that_resets_weights_on_load_is_caught_and_named() -> None:
    with process_state_unchanged(), pytest.raises(CheckFailed) as failure:
        assert_sharded_checkpoint_roundtrip(ResetsHeadOnLoad, adamw)
    message = str(failure.value)
    assert "saved with torch.distributed.checkpoint from FSDP2 (fully_shard) on 2 ranks and loaded on 1 rank" in message
    assert "- model 'head.weight' is not the saved tensor" in message
    assert "body.weight" not in message


def test_an_optimizer_that_drops_its_state_on_load_is_caught_and_named() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_sharded_checkpoint_roundtrip(mlp, adamw_forgetting_its_state, save_world_size=1, load_world_size=2)
    assert "optimizer state 'exp_avg' of '0.weight' is not the saved value" in str(failure.value)


def test_bad_checkpoint_arguments_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="load_world_size must be a positive integer, got -1"):
        assert_sharded_checkpoint_roundtrip(mlp, adamw, load_world_size=-1)
    with pytest.raises(ValueError, match="strategy must be one of 'ddp', 'fsdp', got 'FSDP'"):
        assert_sharded_checkpoint_roundtrip(mlp, adamw, strategy="FSDP")


@pytest.mark.distributed(world_size=2)
def test_the_checkpoint_check_reshards_within_the_ranks_of_a_distributed_test(rank: int) -> None:
    assert_sharded_checkpoint_roundtrip(mlp, adamw, save_world_size=2, load_world_size=1)
    assert_sharded_checkpoint_roundtrip(mlp, adamw, save_world_size=1, load_world_size=2)


class DiesOnRankOne(nn.Module):
    """Rank 1's process exits in the middle of the first forward, as after a segfault or an OOM kill."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(6, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if dist.is_initialized() and dist.get_rank() == 1:
            import os

            os._exit(3)
        return self.linear(x)


def test_a_rank_that_dies_is_named_as_the_cause_not_the_rank_left_waiting() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_data_parallel_equivalent(DiesOnRankOne, sgd, train_step, global_batches())
    headline = str(failure.value).split("\n\n")[0]
    assert "first to fail: rank 1: rank 1 exited with code 3, rank 0 raised RuntimeError" in headline


# -------------------------------- randomness wherever it is spelled, coupled terms (issue 24)

from . import _equivalence_models as models  # noqa: E402


def regression_batches(steps: int = 2) -> list[tuple[torch.Tensor, torch.Tensor]]:
    generator = torch.Generator().manual_seed(0)
    return [
        (torch.randn(GLOBAL_BATCH, 4, generator=generator), torch.randn(GLOBAL_BATCH, 1, generator=generator))
        for _ in range(steps)
    ]


def regression_step(model: nn.Module, optimizer: torch.optim.Optimizer, batch: Batch) -> None:
    model.train()
    optimizer.zero_grad()
    F.mse_loss(model(batch[0]), batch[1]).backward()
    optimizer.step()


def moe_step(model: nn.Module, optimizer: torch.optim.Optimizer, batch: Batch) -> None:
    model.train()
    optimizer.zero_grad()
    models.moe_loss(model, *batch).backward()
    optimizer.step()


@pytest.mark.parametrize(
    ("make_model", "strategy"),
    [(models.ResidualWithDropPath, "ddp"), (models.LstmWithDropout, "ddp"), (models.FunctionalDropout, "fsdp")],
    ids=["drop-path-ddp", "lstm-dropout-ddp", "functional-dropout-fsdp"],
)
def test_randomness_spelled_without_nn_dropout_is_switched_off_on_every_rank(make_model: Any, strategy: str) -> None:
    assert_data_parallel_equivalent(make_model, sgd, regression_step, regression_batches(), strategy=strategy)


def test_a_routers_load_balancing_loss_is_named_as_batch_coupled_across_ranks() -> None:
    with pytest.raises(CheckFailed) as failure:
        assert_data_parallel_equivalent(models.MixtureOfExperts, sgd, moe_step, regression_batches())
    message = str(failure.value)
    assert "Cause: a term computed in the forward couples the samples of a batch: at step 1" in message
    assert "aux_loss of 'router': " in message and "on the ranks' shards" in message
    assert "batch_coupled=('router',)" in message


def test_a_declared_batch_coupled_term_is_left_out_of_every_run() -> None:
    assert_data_parallel_equivalent(
        models.MixtureOfExperts, sgd, moe_step, regression_batches(), batch_coupled=("aux_loss",)
    )
