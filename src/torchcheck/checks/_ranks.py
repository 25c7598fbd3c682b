"""Where the distributed checks run: on the ranks of the caller's process group, or on
ranks they start themselves, and the pieces every such check needs on a rank.

The distributed machinery (DDP, FSDP2, device meshes) is imported here, at module level,
so that ranks forked from the caller inherit it instead of each importing it again.

A check's work is a function of the rank that returns the check's verdict: ``None``
when it passed, else the failure message, the same on every rank. :func:`on_ranks`
runs it in place when a process group is already up (under ``@pytest.mark.distributed``
or torchrun: every rank calls the check) and otherwise forks ``world_size`` CPU ranks
with a gloo process group and raises the verdict in the caller.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.device_mesh import DeviceMesh
from torch.distributed.fsdp import fully_shard
from torch.nn.parallel import DistributedDataParallel

from torchcheck.checks import _rank_runner as runner
from torchcheck.checks._inputs import instantiate
from torchcheck.checks.errors import CheckFailed, NotApplicable
from torchcheck.checks.state import preserved_state

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = [
    "STRATEGIES",
    "Participation",
    "agreed",
    "all_gather_objects",
    "check_strategy",
    "check_world_size",
    "full_tensor",
    "inner_module",
    "on_ranks",
    "rank_device",
    "refuse_unshardable",
    "shard_model",
]

STRATEGIES: tuple[str, ...] = ("ddp", "fsdp")

#: How long ranks a check starts may take before they are stopped with their stacks.
SPAWNED_TIMEOUT_SECONDS = 300.0
#: How long the other ranks may go on once one rank failed: the failing rank's verdict
#: is the check's, and the others usually wait in a collective it never joins.
SPAWNED_GRACE_SECONDS = 1.0

_WORLD_TOO_SMALL = (
    "{check}: needs {needed} ranks, but the process group this runs in has {actual}; "
    "mark the test @pytest.mark.distributed(world_size={needed}) (or launch {needed} "
    "ranks), or call the check outside a process group to let it start its own ranks."
)
_FSDP_SCALARS = (
    "{check}: not applicable with FSDP2 (fully_shard): {model} holds 0-dim (scalar) "
    "parameters: {names}. fully_shard shards every parameter along dim 0, which a scalar "
    "does not have, so torch refuses the model (\"fully_shard doesn't support scalar "
    "parameters\"). Run the check with strategy=\"ddp\", or hold each such value as a "
    "1-element tensor (shape (1,)) to shard it with FSDP2."
)
_BAD_STRATEGY = "{check}: strategy must be one of {choices}, got {value!r}"
_BAD_WORLD_SIZE = "{check}: {name} must be a positive integer, got {value!r}"
_RANKS_FAILED = "{check}: the ranks it started did not finish normally:\n{details}"
_RANK_RAISED = "{check}: rank {rank} raised {type_name}:\n{traceback}"
_INPUT_ERRORS = (ValueError, TypeError)
_FORK_AFTER_CUDA = (
    "{check}: starts its {world_size} CPU ranks as forks of this process, but this process "
    "has initialised CUDA, and a fork of it cannot run backward once a backward ran on CUDA "
    "here, nor save a distributed checkpoint. Call the check from a test marked "
    "@pytest.mark.distributed(world_size={world_size}): its ranks then start as fresh "
    "processes and the check runs on them. Or call it before this process uses CUDA "
    "(with pytest-xdist, a worker runs many tests: keep CUDA tests apart, e.g. "
    "@pytest.mark.xdist_group and --dist loadgroup)."
)


Verdict = str | None


def on_ranks(check: str, work: Callable[[int], Verdict], world_size: int) -> None:
    """Run ``work(rank)`` on ``world_size`` ranks and raise :class:`CheckFailed` with its
    verdict. In place, every rank of the caller's process group calls this and gets the
    same verdict (ranks beyond ``world_size`` take part only in agreeing on it)."""
    if dist.is_available() and dist.is_initialized():
        actual = dist.get_world_size()
        if actual < world_size:
            raise ValueError(_WORLD_TOO_SMALL.format(check=check, needed=world_size, actual=actual))
        verdict = work(dist.get_rank())
    else:
        verdict = _verdict_of_spawned_ranks(check, work, world_size)
    if verdict is not None:
        raise CheckFailed(verdict)


def _verdict_of_spawned_ranks(check: str, work: Callable[[int], Verdict], world_size: int) -> Verdict:
    """The verdict of ``world_size`` forked CPU ranks. A rank that found the problem by
    itself (a ``CheckFailed``) gives the verdict even when other ranks had to be stopped
    (they wait in a collective the failing rank never joined); bad input is raised as
    the ``ValueError`` or ``TypeError`` every rank raised."""
    if torch.cuda.is_initialized():
        raise RuntimeError(_FORK_AFTER_CUDA.format(check=check, world_size=world_size))
    result = runner.run_forked(
        work, world_size, backend="gloo", timeout=SPAWNED_TIMEOUT_SECONDS, grace=SPAWNED_GRACE_SECONDS
    )
    first = runner.first_failure(result)
    if first is not None and first.error is None:
        # The first rank to fail died without a Python error: the others' errors are consequences.
        return _RANKS_FAILED.format(check=check, details=runner.describe_stop(result))
    errors = _errors_in_failure_order(result)
    for _, error in errors:
        if error.is_assertion:
            return error.message
    for _, error in errors:
        for error_type in _INPUT_ERRORS:
            if error.type_name == error_type.__name__:
                raise error_type(error.message)
    if errors:
        rank, error = errors[0]
        return _RANK_RAISED.format(check=check, rank=rank, type_name=error.type_name, traceback=error.traceback)
    if result.failed:
        return _RANKS_FAILED.format(check=check, details=runner.describe_stop(result))
    return result.outcomes[0].returned


def _errors_in_failure_order(result: runner.RanksResult) -> list[tuple[int, Any]]:
    """Each rank's error, the rank that failed first first (it is the cause: the others fail
    in the collectives it never joined)."""
    return [(outcome.rank, outcome.error) for outcome in runner.in_failure_order(result) if outcome.error is not None]


def check_world_size(check: str, name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(_BAD_WORLD_SIZE.format(check=check, name=name, value=value))
    return value


def check_strategy(check: str, strategy: object) -> str:
    if strategy not in STRATEGIES:
        raise ValueError(_BAD_STRATEGY.format(check=check, choices=", ".join(map(repr, STRATEGIES)), value=strategy))
    return str(strategy)


class Participation:
    """Whether this rank takes part in a step that needs ``size`` ranks, and the group
    of those ranks (the first ``size`` of the world)."""

    def __init__(self, size: int) -> None:
        self.size = size
        world = dist.get_world_size()
        # new_group is collective: every rank of the world creates it, members or not.
        self.group = None if size == world else dist.new_group(list(range(size)))
        self.member = dist.get_rank() < size

    @property
    def rank(self) -> int:
        return dist.get_rank(self.group) if self.group is not None else dist.get_rank()


def agreed(verdict: Verdict) -> Verdict:
    """Rank 0's verdict, on every rank of the world."""
    holder: list[Any] = [verdict]
    dist.broadcast_object_list(holder, src=0)
    return holder[0]


def all_gather_objects(value: Any, group: Any = None) -> list[Any]:
    gathered: list[Any] = [None] * dist.get_world_size(group)
    dist.all_gather_object(gathered, value, group=group)
    return gathered


def rank_device() -> torch.device:
    """This rank's device: its current GPU when the process group uses nccl, else CPU."""
    backend = str(dist.get_backend())
    if "nccl" in backend and torch.cuda.is_available():
        return torch.device("cuda", torch.cuda.current_device())
    return torch.device("cpu")


def shard_model(model: nn.Module, strategy: str, group: Any, device: torch.device) -> nn.Module:
    """``model`` trained the way ``strategy`` trains it over ``group``: wrapped in
    ``DistributedDataParallel``, or sharded in place with FSDP2 ``fully_shard`` (the
    root module as one unit). Returns the module to call."""
    if strategy == "ddp":
        device_ids = [device.index] if device.type == "cuda" else None
        return DistributedDataParallel(model, device_ids=device_ids, process_group=group)
    if group is None:
        fully_shard(model)
    else:
        fully_shard(model, mesh=DeviceMesh.from_group(group, device.type))
    return model


def refuse_unshardable(check: str, make_model: nn.Module | Callable[[], nn.Module], strategy: str) -> None:
    """Raise :class:`NotApplicable` before any rank starts when ``strategy`` is FSDP2 and
    the model holds 0-dim parameters, which ``fully_shard`` cannot shard. Builds one
    model (or copies the instance) with the caller's RNG state restored afterwards."""
    if strategy != "fsdp":
        return
    with preserved_state():
        model = instantiate(make_model)
    scalars = [name for name, parameter in model.named_parameters() if parameter.dim() == 0]
    if scalars:
        names = ", ".join(repr(name) for name in scalars)
        raise NotApplicable(_FSDP_SCALARS.format(check=check, model=type(model).__name__, names=names))


def inner_module(model: nn.Module) -> nn.Module:
    """The user's module inside a DDP wrapper (FSDP2 shards the module itself)."""
    return model.module if hasattr(model, "module") and isinstance(model.module, nn.Module) else model


def full_tensor(tensor: torch.Tensor) -> torch.Tensor:
    """A CPU copy of the whole tensor; a sharded ``DTensor`` is gathered (collective)."""
    if hasattr(tensor, "full_tensor"):
        tensor = tensor.full_tensor()
    return tensor.detach().to("cpu", copy=True)

