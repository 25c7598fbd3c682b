"""Data-parallel training (DDP, FSDP2) equals single-process training on the global batches."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.distributed as dist
from torch import nn

from torchcheck.checks._compare import callable_name, first_mismatch, indent, map_tensors
from torchcheck.checks._forward_effects import (
    BatchCoupled,
    ForwardEffects,
    apply_batch_coupled,
    coupled_terms,
    describe_coupled,
    observed_forwards,
)
from torchcheck.checks._gradient_noise import add_noise, noise_level_elements, without_noise
from torchcheck.checks._inputs import instantiate
from torchcheck.checks._localize_setting import localize_level
from torchcheck.checks._ranks import (
    Participation,
    agreed,
    all_gather_objects,
    check_strategy,
    check_world_size,
    full_tensor,
    on_ranks,
    rank_device,
    refuse_unshardable,
    shard_model,
)
from torchcheck.checks._stochastic import RandomOps, random_ops_at_expected_value
from torchcheck.checks._train_mode import TrainModeLayers, module_list, recording_train_mode_layers
from torchcheck.checks.accumulation import _batched_tensors, _slice
from torchcheck.checks.errors import CheckFailed
from torchcheck.checks.localize import BatchSplit, where_split_starts
from torchcheck.checks.seeding import seed_everything
from torchcheck.checks.state import preserved_state

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = ["assert_data_parallel_equivalent"]

StepFn = Callable[[nn.Module, torch.optim.Optimizer, Any], Any]
#: ``batches(rank, world_size)``: the batches one rank trains on, as the user's own data
#: pipeline gives them; ``batches(0, 1)`` is the single-process run.
BatchesFn = Callable[[int, int], Sequence[Any]]

_CHECK = "assert_data_parallel_equivalent"
_PREFIX = _CHECK + ": "
_SEED = 0
#: How close (cosine) the distributed update must be to a multiple of the single-process
#: one for the multiple to explain it; rounding alone stays far above this.
_SAME_DIRECTION = 0.99
_RATIO_SLACK = 0.05
_STRATEGY_NAMES = {"ddp": "DDP", "fsdp": "FSDP2 (fully_shard)"}
#: Both runs train in float64 when the model and step allow it, so rounding can neither
#: fake nor hide a difference: an optimizer that normalises gradients (Adam) turns the
#: float32 rounding noise of a gradient that is mathematically zero into a full-size
#: update, which differs between any two ways of summing the same batch.
_PRECISION = torch.float64

_NO_BATCHES = _PREFIX + (
    "batches must be a non-empty list of global batches (each split across the ranks along "
    "dim 0), or a function batches(rank, world_size) returning the batches of one rank; got {value!r}"
)
_NO_BATCH_DIMENSION = _PREFIX + (
    "global batch {step} holds no tensor with a batch dimension to split across the ranks; pass "
    "a tensor, a tuple such as (inputs, targets) or a dict of tensors."
)
_BATCH_SIZES_DIFFER = _PREFIX + (
    "global batch {step}: every tensor is split along dim 0, but {path} has {size} rows while "
    "{first_path} has {batch_size}."
)
_NOT_DIVISIBLE = _PREFIX + (
    "global batch {step} has {batch_size} samples, which do not split into {world_size} equal "
    "shards. Use a global batch size divisible by world_size: a mean loss weights every sample "
    "equally only when the shards are equal."
)
_SYNC_BATCH_NORM_ON_CPU = _PREFIX + (
    "the model has SyncBatchNorm layers ({modules}), which run only on GPUs, and this check runs "
    "on CPU ranks (gloo). Run it on GPUs: inside a test marked @pytest.mark.distributed on its "
    "cuda run (nccl, one GPU per rank), or under torchrun on GPU nodes."
)
_STEP_COUNTS_DIFFER = _PREFIX + (
    "batches(rank, world_size) gave the ranks {counts} batches, and batches(0, 1), the "
    "single-process run, {reference}: each rank must take one step per global batch.{cause}"
)
_NOT_SHARDED = _PREFIX + (
    "batches(rank, world_size) gave every one of the {world_size} ranks the same batch at step "
    "{step}.{cause}"
)
_CAUSE_NOT_SHARDED = """
Cause: the data is not sharded: every rank trains on the same samples, so the ranks \
repeat each other's work and one epoch is world_size epochs. Give each rank its part of \
the data: DistributedSampler(dataset, num_replicas=world_size, rank=rank) in the \
DataLoader (and sampler.set_epoch(epoch) every epoch)."""
_GLOBAL_BATCHES_DIFFER = _PREFIX + (
    "the ranks were given different global batches: {what} differs between ranks {ranks} at "
    "step {step}. Every rank runs the single-process reference on the same global batches and "
    "takes its shard of them, so they must be equal on every rank. Batches drawn at random in "
    "each rank's process differ unless every rank seeds the same way first (a test marked "
    "@pytest.mark.distributed starts every rank from the test's seed); build them from a "
    "fixed seed or from data, not from the process's own random state."
)
_REFERENCE_RAISED = _PREFIX + "{name} raised in single-process training at step {step}:\n  {error}"
_DISTRIBUTED_RAISED = _PREFIX + (
    "{name} raised on rank {rank} at step {step} of training with {strategy}:\n  {error}{cause}"
)
_CAUSE_UNUSED = """
Cause: unused parameters: {parameters} got no gradient at step {step} (they take no part \
in the loss). DistributedDataParallel waits for the gradient of every parameter, so the \
next step fails. Remove or freeze them (requires_grad=False), or wrap the model with \
DistributedDataParallel(..., find_unused_parameters=True)."""
_UNUSED_ON_RANK = _PREFIX + (
    "with DDP, rank {rank} computed no gradient for {parameters} at step {step}, while "
    "single-process training on the global batch did.\n"
    "Cause: a parameter unused on some ranks: it takes part in the loss for some samples "
    "only, and DDP on the ranks that used it waits for this rank's gradient forever. Make "
    "every parameter part of every rank's loss (add 0 * parameter.sum() for the branch not "
    "taken), or wrap the model with DistributedDataParallel(..., find_unused_parameters=True)."
)
_DIFFERS = _PREFIX + """training with {strategy} on {world_size} ranks, each taking its \
shard of every global batch, differs from single-process training on the global batches \
after step {step} of {steps}, at {kind} '{name}':
{details}
{cause}{notes}"""
_CAUSE_COUPLED = """\
Cause: a term computed in the forward couples the samples of a batch: at step {step} its \
value on the global batch is neither the mean nor the sum of its values on the ranks' shards.
{terms}
A router's load-balancing loss, or a loss averaged over the tokens of padded sequences, \
depends on the whole batch, so averaging the ranks' gradients cannot equal the gradient \
of the global batch. If the term is meant to be so, declare it: batch_coupled={pattern!r} \
multiplies it by zero in every run (a term's name or its module's path, fnmatch \
patterns); a term folded into the model's own loss is switched off by a function \
instead: batch_coupled=lambda model: setattr(model, "router_aux_loss_coef", 0.0)."""
_CAUSE_RANDOM_LEFT_ON = """\
Cause: random integers drawn during training ({ops}): the draws of each rank and of the \
single process differ in shape, so the samples get different numbers. Draw them outside \
step_fn, or from a generator seeded per sample."""
_CAUSE_RANKS_DISAGREE = """\
Cause: after step {step} the ranks hold different parameters ('{name}' first): their \
gradients were not averaged. The forward bypasses the DDP wrapper (model.module(...) or a \
submodule called directly instead of model(...)), or runs under model.no_sync(). Call the \
model step_fn is given."""
_CAUSE_SUMMED = """\
Cause: a loss summed over samples instead of averaged: the distributed gradient is \
{ratio:.3g} times the single-process one (cosine {cosine:.4f}), 1/world_size. {strategy} \
averages gradients over the {world_size} ranks, so each rank's sum over its shard counts \
1/{world_size} of the sum over the global batch. Use a mean loss (reduction="mean"), or \
multiply the loss by world_size."""
_CAUSE_SUMMED_OVER_RANKS = """\
Cause: the distributed gradient is {ratio:.3g} times the single-process one (cosine \
{cosine:.4f}), world_size times: gradients or the loss are summed over the ranks on top \
of the averaging {strategy} does (an all_reduce with SUM in step_fn?), or the loss is a \
mean in one run and a sum in the other."""
_CAUSE_BATCH_NORM = """\
Cause: BatchNorm without SyncBatchNorm: {modules} normalise each rank's {shard} with that \
shard's own mean and variance, not the global batch's. Convert them with \
torch.nn.SyncBatchNorm.convert_sync_batchnorm(model) before wrapping (SyncBatchNorm runs \
on GPUs), or use a normalisation without batch statistics (GroupNorm, LayerNorm)."""
_OWN_PRECISION = """
Note: both runs trained in the model's own precision, since in float64 {name} raised \
{error}. Rounding alone can then move parameters that an optimizer such as Adam updates \
from near-zero gradients; pass rtol/atol if that is all the difference is."""
_CAUSE_UNKNOWN = """\
The distributed update is {ratio:.3g} times the single-process one (cosine {cosine:.4f}). \
Check that the loss is a mean over each rank's samples, that the forward goes through the \
model step_fn is given, and that every rank gets its own equal shard of the data."""

_DDP_UNUSED_ERRORS = ("find_unused_parameters", "Expected to have finished reduction")


@dataclass(frozen=True)
class _Setup:
    make_model: nn.Module | Callable[[], nn.Module]
    make_optimizer: Callable[[nn.Module], Any]
    step_fn: StepFn
    batches: Sequence[Any] | BatchesFn
    world_size: int
    strategy: str
    rtol: float | None
    atol: float | None
    batch_coupled: BatchCoupled = None

    @property
    def name(self) -> str:
        return callable_name(self.step_fn)

    @property
    def strategy_name(self) -> str:
        return _STRATEGY_NAMES[self.strategy]

    @property
    def user_shards(self) -> bool:
        """Whether the user's own pipeline (``batches(rank, world_size)``) shards the data."""
        return callable(self.batches)


@dataclass
class _Snapshot:
    """The model after one step: whole parameters, gradients and buffers, on CPU."""

    parameters: dict[str, torch.Tensor]
    gradients: dict[str, torch.Tensor | None]
    buffers: dict[str, torch.Tensor]


@dataclass
class _Failure:
    step: int
    rank: int
    error: str  # "TypeName: message"


@dataclass
class _Run:
    """One training run: the model before, after every step, and what went wrong."""

    initial: dict[str, torch.Tensor]
    steps: list[_Snapshot] = field(default_factory=list)
    failure: _Failure | None = None
    layers: TrainModeLayers = field(default_factory=TrainModeLayers)
    ranks_disagree: tuple[int, str] | None = None  # (step, first parameter)
    random_ops: RandomOps = field(default_factory=RandomOps)
    effects: ForwardEffects = field(default_factory=ForwardEffects)
    #: Every rank's forward effects (the distributed run, gathered after training).
    rank_effects: list[ForwardEffects] = field(default_factory=list)


def assert_data_parallel_equivalent(
    make_model: nn.Module | Callable[[], nn.Module],
    make_optimizer: Callable[[nn.Module], Any],
    step_fn: StepFn,
    batches: Sequence[Any] | BatchesFn,
    *,
    world_size: int = 2,
    strategy: str = "ddp",
    rtol: float | None = None,
    atol: float | None = None,
    batch_coupled: BatchCoupled = None,
) -> None:
    """Training with ``strategy`` (``"ddp"``: ``DistributedDataParallel``; ``"fsdp"``:
    FSDP2 ``fully_shard``) on ``world_size`` ranks must give the same parameters and
    buffers after every step as single-process training on the global batches, within
    ``rtol``/``atol`` (default: assert_close's for each tensor's dtype).

    ``batches`` is a list of global batches, each split along dim 0 into one equal shard
    per rank (a tuple element-wise, a dict per value), or a function
    ``batches(rank, world_size)`` returning the batches one rank trains on, as the user's
    data pipeline gives them (``batches(0, 1)`` is then the single-process run).
    ``step_fn(model, optimizer, batch)`` is one training step; it gets the wrapped model.
    ``make_optimizer`` may return ``(optimizer, scheduler)``: the scheduler steps after
    each step. Every run builds the model with the same seed, and trains in float64 (the
    model and the floating-point tensors of the batches), so that rounding neither fakes
    nor hides a difference; a model or step that fails in float64 is trained in its own
    precision instead, and a failure message says so.

    Called from a single process, the check starts ``world_size`` CPU ranks with a gloo
    process group; inside a process group (a test marked ``@pytest.mark.distributed``,
    torchrun) it runs on the caller's ranks, on their GPUs when the group uses nccl. On
    failure the message names the first diverging parameter and step and the likely
    cause: BatchNorm without SyncBatchNorm, a loss summed instead of averaged, unused
    parameters, data not sharded, a forward that bypasses the DDP wrapper, or a term of
    the forward that couples the samples (a router's load-balancing loss).

    Randomness is switched off in every run, wherever it is spelled (``nn.Dropout``,
    ``F.dropout``, attention ``dropout_p``, ``nn.LSTM(dropout=)``, drop-path from
    ``bernoulli_``): every random draw of a float runs at its expected value, so dropout
    is the identity; masks drawn per rank could never agree with masks drawn for the
    global batch. ``batch_coupled`` declares terms that depend on the whole batch by
    design, as for :func:`assert_accumulation_equivalent`: fnmatch patterns of a
    scalar's name or its module's path (multiplied by zero in every run), or a function
    called on each freshly built model that switches them off.
    """
    world_size = check_world_size(_CHECK, "world_size", world_size)
    strategy = check_strategy(_CHECK, strategy)
    _check_batches(batches, world_size)
    refuse_unshardable(_CHECK, make_model, strategy)
    setup = _Setup(make_model, make_optimizer, step_fn, batches, world_size, strategy, rtol, atol, batch_coupled)
    on_ranks(_CHECK, lambda _rank: _verdict(setup), world_size)


def _verdict(setup: _Setup) -> str | None:
    """On every rank of the world: this rank's part, then rank 0's verdict for all."""
    with preserved_state():
        part = Participation(setup.world_size)
        verdict = _compare(setup, part) if part.member else None
        return agreed(verdict)


# ------------------------------------------------------------------- batches


def _check_batches(batches: object, world_size: int) -> None:
    if callable(batches):
        return
    if isinstance(batches, (str, bytes)) or not isinstance(batches, Sequence) or not batches:
        raise ValueError(_NO_BATCHES.format(value=batches))
    for step, batch in enumerate(batches, start=1):
        _shard_size(batch, world_size, step)


def _shard_size(batch: Any, world_size: int, step: int) -> int:
    sized = list(_batched_tensors(batch, "batch"))
    if not sized:
        raise ValueError(_NO_BATCH_DIMENSION.format(step=step))
    first_path, first = sized[0]
    for path, tensor in sized[1:]:
        if tensor.shape[0] != first.shape[0]:
            raise ValueError(
                _BATCH_SIZES_DIFFER.format(
                    step=step, path=path, size=tensor.shape[0], first_path=first_path, batch_size=first.shape[0]
                )
            )
    batch_size = int(first.shape[0])
    if batch_size % world_size:
        raise ValueError(_NOT_DIVISIBLE.format(step=step, batch_size=batch_size, world_size=world_size))
    return batch_size // world_size


def _batches_of_rank(setup: _Setup, rank: int, device: torch.device) -> tuple[list[Any], list[Any]]:
    """The single-process run's batches and this rank's, on ``device``."""
    if callable(setup.batches):
        reference, own = list(setup.batches(0, 1)), list(setup.batches(rank, setup.world_size))
    else:
        reference = list(setup.batches)
        own = [_shards(batch, setup.world_size, step)[rank] for step, batch in enumerate(reference, start=1)]
    return _on_device(reference, device), _on_device(own, device)


def _shards(batch: Any, world_size: int, step: int) -> list[Any]:
    """The global batch of ``step`` cut into the ranks' equal consecutive shards."""
    size = _shard_size(batch, world_size, step)
    return [_slice(batch, rank * size, (rank + 1) * size) for rank in range(world_size)]


def _on_device(batches: list[Any], device: torch.device) -> list[Any]:
    return [map_tensors(batch, lambda tensor: tensor.to(device)) for batch in batches]


def _check_no_sync_batch_norm_on_cpu(model: nn.Module, device: torch.device) -> None:
    """SyncBatchNorm refuses CPU tensors in training: say so rather than let it fail
    inside the user's step (every rank raises here, at the same point)."""
    if device.type != "cpu":
        return
    synced = [name for name, module in model.named_modules() if isinstance(module, nn.SyncBatchNorm)]
    if synced:
        raise ValueError(_SYNC_BATCH_NORM_ON_CPU.format(modules=module_list(synced)))


# ------------------------------------------------------------------- compare


def _compare(setup: _Setup, part: Participation) -> str | None:
    device = rank_device()
    reference_batches, own_batches = _batches_of_rank(setup, part.rank, device)
    problem = _data_problem(setup, part, reference_batches, own_batches)
    if problem is not None:
        return problem
    dtype, reference, note = _reference_run(setup, reference_batches, device)
    if reference.failure is not None:
        return _REFERENCE_RAISED.format(name=setup.name, step=reference.failure.step, error=reference.failure.error)
    own_batches = _in_precision(own_batches, dtype)
    distributed = _train(setup, own_batches, device, dtype, part=part, reference=reference)
    distributed.rank_effects = all_gather_objects(_plain(distributed.effects), part.group)
    if distributed.failure is not None:
        return _failure_message(setup, distributed.failure, reference) + note
    difference = _difference_message(setup, reference, distributed)
    if difference is None:
        return None
    message, step, named = difference
    if part.rank == 0 and not named:
        message += _where_it_starts(setup, reference, reference_batches, device, dtype, step)
    return message + note


def _reference_run(setup: _Setup, batches: list[Any], device: torch.device) -> tuple[torch.dtype | None, _Run, str]:
    """Single-process training in float64, or in the model's own precision when float64
    fails (a forward that casts to float32 itself, say); the precision the distributed
    run must use, and the note a failure message then carries."""
    reference = _train(setup, _in_precision(batches, _PRECISION), device, _PRECISION)
    if reference.failure is None:
        return _PRECISION, reference, ""
    own = _train(setup, batches, device, None)
    if own.failure is not None:
        return None, own, ""
    return None, own, _OWN_PRECISION.format(name=setup.name, error=reference.failure.error)


def _in_precision(batches: list[Any], dtype: torch.dtype | None) -> list[Any]:
    if dtype is None:
        return batches
    def converted(tensor: torch.Tensor) -> torch.Tensor:
        return tensor.to(dtype) if tensor.is_floating_point() else tensor

    return [map_tensors(batch, converted) for batch in batches]


def _data_problem(
    setup: _Setup, part: Participation, reference_batches: list[Any], own_batches: list[Any]
) -> str | None:
    """The same global batches on every rank; with the user's own sharding, also every
    rank the same number of steps as the single-process run, and different data on
    every rank."""
    differing = _global_batches_differ(setup, part, reference_batches)
    if differing is not None or not setup.user_shards:
        return differing
    counts = all_gather_objects(len(own_batches), part.group)
    fingerprints = all_gather_objects([_fingerprint(batch) for batch in own_batches], part.group)
    same_step = _first_step_alike(fingerprints) if setup.world_size > 1 else None
    if len(set(counts)) > 1 or counts[0] != len(reference_batches):
        cause = _CAUSE_NOT_SHARDED if same_step is not None else ""
        shown = counts[0] if len(set(counts)) == 1 else counts
        return _STEP_COUNTS_DIFFER.format(counts=shown, reference=len(reference_batches), cause=cause)
    if same_step is not None:
        return _NOT_SHARDED.format(world_size=setup.world_size, step=same_step, cause=_CAUSE_NOT_SHARDED)
    return None


def _global_batches_differ(setup: _Setup, part: Participation, reference_batches: list[Any]) -> str | None:
    if setup.world_size < 2:
        return None
    fingerprints = all_gather_objects([_fingerprint(batch) for batch in reference_batches], part.group)
    for step, per_rank in enumerate(zip(*fingerprints), start=1):
        if len(set(per_rank)) > 1:
            ranks = ", ".join(str(rank) for rank, value in enumerate(per_rank) if value != per_rank[0])
            what = "batches(0, 1)" if setup.user_shards else "the global batch"
            return _GLOBAL_BATCHES_DIFFER.format(what=what, ranks=f"0 and {ranks}", step=step)
    return None


def _fingerprint(batch: Any) -> str:
    digest = hashlib.sha256()
    for _, tensor in _batched_tensors(batch, "batch"):
        digest.update(_raw_bytes(tensor))
    return digest.hexdigest()


def _raw_bytes(tensor: torch.Tensor) -> bytes:
    """The tensor's bytes, for any dtype (numpy has no bfloat16)."""
    return tensor.detach().to("cpu").contiguous().flatten().view(torch.uint8).numpy().tobytes()


def _first_step_alike(fingerprints: list[list[str]]) -> int | None:
    for step, per_rank in enumerate(zip(*fingerprints), start=1):
        if len(set(per_rank)) == 1:
            return step
    return None


# ------------------------------------------------------------------ training


def _train(
    setup: _Setup,
    batches: list[Any],
    device: torch.device,
    dtype: torch.dtype | None,
    *,
    part: Participation | None = None,
    reference: _Run | None = None,
) -> _Run:
    """Train on ``batches`` (in ``dtype``, or the model's own precision for ``None``): in
    a single process, or (with ``part``) wrapped by the strategy, recording the whole
    model after every step."""
    seed_everything(_SEED)
    module = instantiate(setup.make_model).to(device=device, dtype=dtype)
    apply_batch_coupled(module, setup.batch_coupled)
    _check_no_sync_batch_norm_on_cpu(module, device)
    model = shard_model(module, setup.strategy, part.group, device) if part is not None else module
    optimizer, scheduler = _optimizer_and_scheduler(setup.make_optimizer(model))
    run = _Run(initial=_parameters(module))
    seed_everything(_SEED)
    with (
        recording_train_mode_layers(module) as run.layers,
        observed_forwards(module, batch_coupled=setup.batch_coupled) as run.effects,
        random_ops_at_expected_value() as run.random_ops,
    ):
        for step, batch in enumerate(batches, start=1):
            error = _step(setup, model, optimizer, scheduler, batch)
            if part is not None and reference is not None and error is None and setup.strategy == "ddp":
                _raise_if_unused_here(setup, module, reference, step, part)
            failure = _agreed_failure(step, error, part, device)
            if failure is not None:
                run.failure = failure
                break
            run.steps.append(_snapshot(module))
            if part is not None and setup.strategy == "ddp" and run.ranks_disagree is None:
                run.ranks_disagree = _ranks_disagree(module, step, part)
    return run


def _optimizer_and_scheduler(made: Any) -> tuple[torch.optim.Optimizer, Any]:
    if isinstance(made, tuple):
        return made[0], made[1] if len(made) > 1 else None
    return made, None


def _step(
    setup: _Setup, model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any, batch: Any
) -> str | None:
    try:
        setup.step_fn(model, optimizer, batch)
        if scheduler is not None:
            scheduler.step()
    except Exception as error:  # noqa: BLE001 - the user's step failing is the finding
        return _first_line(f"{type(error).__name__}: {error}")
    return None


def _first_line(text: str) -> str:
    """The first line of an error (DDP's run on for a dozen lines)."""
    lines = text.strip().splitlines()
    return lines[0] + (" [...]" if len(lines) > 1 else "") if lines else text


def _agreed_failure(
    step: int, error: str | None, part: Participation | None, device: torch.device
) -> _Failure | None:
    """Whether any rank's step failed (a collective: every rank stops together)."""
    if part is None:
        return None if error is None else _Failure(step, 0, error)
    flag = torch.tensor([0 if error is None else 1], device=device)
    dist.all_reduce(flag, op=dist.ReduceOp.MAX, group=part.group)
    if not flag.item():
        return None
    errors = all_gather_objects(error, part.group)
    rank = next(index for index, text in enumerate(errors) if text is not None)
    return _Failure(step, rank, errors[rank])


def _raise_if_unused_here(
    setup: _Setup, module: nn.Module, reference: _Run, step: int, part: Participation
) -> None:
    """A parameter without a gradient on this rank that the global batch gives one:
    under DDP the ranks that used it now wait for this rank forever, so say it here,
    before any other collective."""
    if step > len(reference.steps):
        return
    expected = reference.steps[step - 1].gradients
    missing = [
        name
        for name, parameter in module.named_parameters()
        if parameter.requires_grad and parameter.grad is None and expected.get(name) is not None
    ]
    if missing:
        names = module_list(missing)
        raise CheckFailed(_UNUSED_ON_RANK.format(rank=part.rank, parameters=names, step=step))


def _parameters(module: nn.Module) -> dict[str, torch.Tensor]:
    return {name: full_tensor(parameter) for name, parameter in module.named_parameters()}


def _snapshot(module: nn.Module) -> _Snapshot:
    gradients = {
        name: None if parameter.grad is None else full_tensor(parameter.grad)
        for name, parameter in module.named_parameters()
    }
    buffers = {name: full_tensor(buffer) for name, buffer in module.named_buffers()}
    return _Snapshot(_parameters(module), gradients, buffers)


def _ranks_disagree(module: nn.Module, step: int, part: Participation) -> tuple[int, str] | None:
    """Whether the replicas differ after ``step`` (DDP keeps them identical)."""
    digests = {name: _digest(parameter) for name, parameter in module.named_parameters()}
    per_rank = all_gather_objects(digests, part.group)
    for name in digests:
        if len({rank_digests[name] for rank_digests in per_rank}) > 1:
            return step, name
    return None


def _digest(tensor: torch.Tensor) -> str:
    return hashlib.sha256(_raw_bytes(tensor)).hexdigest()


# ---------------------------------------------------------------- diagnosis


def _failure_message(setup: _Setup, failure: _Failure, reference: _Run) -> str:
    cause = ""
    if setup.strategy == "ddp" and any(marker in failure.error for marker in _DDP_UNUSED_ERRORS):
        unused = _unused_in(reference, failure.step - 1)
        if unused:
            cause = _CAUSE_UNUSED.format(parameters=module_list(unused), step=failure.step - 1)
    return _DISTRIBUTED_RAISED.format(
        name=setup.name,
        rank=failure.rank,
        step=failure.step,
        strategy=setup.strategy_name,
        error=failure.error,
        cause=cause,
    )


def _unused_in(reference: _Run, step: int) -> list[str]:
    if not 1 <= step <= len(reference.steps):
        return []
    return [name for name, gradient in reference.steps[step - 1].gradients.items() if gradient is None]


def _difference_message(setup: _Setup, reference: _Run, distributed: _Run) -> tuple[str, int, bool] | None:
    """The message, the step of the first difference, and whether a cause was named."""
    found = _first_difference(setup, reference, distributed)
    if found is None:
        return None
    step, kind, mismatch = found
    ratio, cosine = _ratio_and_cosine(_change(distributed, step), _change(reference, step))
    named = _named_cause(setup, reference, distributed, step, ratio, cosine)
    message = _DIFFERS.format(
        strategy=setup.strategy_name,
        world_size=setup.world_size,
        step=step,
        steps=len(reference.steps),
        kind=kind,
        name=mismatch.path,
        details=indent(mismatch.render()),
        cause=named or _CAUSE_UNKNOWN.format(ratio=ratio, cosine=cosine),
        notes=_notes(reference),
    )
    return message, step, named is not None


def _first_difference(setup: _Setup, reference: _Run, distributed: _Run) -> tuple[int, str, Any] | None:
    noise: dict[str, torch.Tensor] = {}
    for step, (expected, actual) in enumerate(zip(reference.steps, distributed.steps), start=1):
        add_noise(noise, noise_level_elements(expected.gradients, actual.gradients))
        for kind, expected_values, actual_values in (
            ("parameter", expected.parameters, without_noise(actual.parameters, expected.parameters, noise)),
            ("buffer", expected.buffers, actual.buffers),
        ):
            for name, value in expected_values.items():
                mismatch = first_mismatch(actual_values.get(name), value, path=name, rtol=setup.rtol, atol=setup.atol)
                if mismatch is not None:
                    return step, kind, mismatch
    return None


def _where_it_starts(
    setup: _Setup, reference: _Run, batches: list[Any], device: torch.device, dtype: torch.dtype | None, step: int
) -> str:
    """In this process, no collective: the forwards of ``step`` on the global batch and on
    each rank's shard in turn, from the weights single-process training had before it
    (the optimizer does not step in between). With the user's own shards the rows of a
    shard are not known, so nothing is compared."""
    if setup.user_shards:
        return ""
    global_batch = _in_precision([batches[step - 1]], dtype)[0]
    shards = _shards(global_batch, setup.world_size, step)
    state = reference.steps[step - 2] if step > 1 else None

    def forwards(parts: list[Any]) -> Callable[[], None]:
        def run() -> None:
            seed_everything(_SEED)
            model = instantiate(setup.make_model).to(device=device, dtype=dtype)
            apply_batch_coupled(model, setup.batch_coupled)
            if state is not None:
                model.load_state_dict({**state.parameters, **state.buffers}, strict=False)
            optimizer, _ = _optimizer_and_scheduler(setup.make_optimizer(model))
            optimizer.step = lambda *args, **kwargs: None  # forwards from the same weights
            with random_ops_at_expected_value():
                for part in parts:
                    setup.step_fn(model, optimizer, part)

        return run

    rows = _shard_size(global_batch, setup.world_size, step) * setup.world_size
    split = BatchSplit(setup.world_size, rows, "shard", "ranks' shards")
    section = where_split_starts(forwards([global_batch]), forwards(shards), split, level=localize_level())
    return f"\n{section}" if section else ""


def _named_cause(
    setup: _Setup, reference: _Run, distributed: _Run, step: int, ratio: float, cosine: float
) -> str | None:
    """The cause the runs show, given the distributed update's size relative to the
    single-process one's and their cosine; None when none is recognised."""
    if distributed.ranks_disagree is not None and distributed.ranks_disagree[0] <= step:
        disagree_step, name = distributed.ranks_disagree
        return _CAUSE_RANKS_DISAGREE.format(step=disagree_step, name=name)
    if cosine > _SAME_DIRECTION:
        factors = ((1 / setup.world_size, _CAUSE_SUMMED), (setup.world_size, _CAUSE_SUMMED_OVER_RANKS))
        for expected, template in factors:
            if abs(ratio - expected) <= _RATIO_SLACK * expected:
                return template.format(
                    ratio=ratio, cosine=cosine, world_size=setup.world_size, strategy=setup.strategy_name
                )
    if distributed.layers.batch_statistics:
        unsynced = sorted(distributed.layers.batch_statistics)
        return _CAUSE_BATCH_NORM.format(modules=module_list(unsynced), shard=_shard_words(setup))
    steps = len(reference.steps)
    coupled = coupled_terms(
        _at_step(reference.effects, step, steps), [_at_step(e, step, steps) for e in distributed.rank_effects]
    )
    if coupled:
        pattern = (coupled[0].module or coupled[0].name,)
        return _CAUSE_COUPLED.format(step=step, terms=describe_coupled(coupled, "ranks' shards"), pattern=pattern)
    if reference.random_ops.left_on:
        return _CAUSE_RANDOM_LEFT_ON.format(ops=reference.random_ops.describe_left_on())
    return None


def _plain(effects: ForwardEffects) -> ForwardEffects:
    """A copy that pickles (no default factories), to gather from every rank."""
    return ForwardEffects(dict(effects.updated_buffers), dict(effects.terms), set(effects.zeroed))


def _at_step(effects: ForwardEffects, step: int, steps: int) -> ForwardEffects:
    """The terms of one step: each key's value at ``step``, for keys computed once per
    step (a step_fn that runs several forwards is not compared term by term)."""
    terms = {key: values[step - 1 : step] for key, values in effects.terms.items() if len(values) == steps}
    return ForwardEffects(effects.updated_buffers, terms, effects.zeroed)


def _notes(reference: _Run) -> str:
    lines = [reference.random_ops.note()]
    if reference.effects.zeroed:
        lines.append("Declared batch-coupled and multiplied by zero: " + ", ".join(sorted(reference.effects.zeroed)) + ".")
    return "".join("\n" + line for line in lines if line)


def _shard_words(setup: _Setup) -> str:
    if callable(setup.batches):
        return "batch"
    size = _shard_size(setup.batches[0], setup.world_size, 1)
    return f"shard of {size} sample{'s' if size != 1 else ''}"


def _change(run: _Run, step: int) -> torch.Tensor:
    """What moved the parameters at ``step``: the gradients when the step left them
    (the clearer signal: an optimizer such as Adam hides their scale), else the update."""
    snapshot = run.steps[step - 1]
    if all(gradient is not None for gradient in snapshot.gradients.values()) and snapshot.gradients:
        return _flat(snapshot.gradients.values())
    before = run.initial if step == 1 else run.steps[step - 2].parameters
    return _flat(snapshot.parameters[name].double() - before[name].double() for name in before)


def _flat(tensors: Any) -> torch.Tensor:
    flat = [tensor.double().flatten() for tensor in tensors if tensor is not None]
    return torch.cat(flat) if flat else torch.zeros(0, dtype=torch.float64)


def _ratio_and_cosine(update: torch.Tensor, reference: torch.Tensor) -> tuple[float, float]:
    """How many times ``reference`` the projection of ``update`` on it is, and the
    cosine between them; ``nan`` where either is zero."""
    reference_norm, update_norm = float(reference.norm()), float(update.norm())
    if reference_norm == 0 or update_norm == 0 or update.shape != reference.shape:
        return math.nan, math.nan
    dot = float(update @ reference)
    return dot / reference_norm**2, dot / (reference_norm * update_norm)

