"""Pure decisions behind ``@pytest.mark.distributed``: the marker's arguments, the
launch a process may be part of (torchrun's environment), and how each test runs.

Like ``torchcheck.plugin.support`` this imports neither pytest nor torch, so every
decision can be tested with fake device counts; unlike it, it is imported only by
sessions that have a distributed test or run under a launcher, so loading the plugin
does not pay for it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from torchcheck.plugin.support import DeviceUnavailableError, FoundDevices, SettingError

__all__ = [
    "DistributedPlan",
    "DistributedRequest",
    "LaunchedWorld",
    "distributed_device",
    "launched_world",
    "parse_distributed_marker",
    "plan_distributed",
    "rank_device",
]

DISTRIBUTED_ARGUMENT_MESSAGE = "{source}: {problem}"
DISTRIBUTED_UNKNOWN_ARGUMENT = "unknown argument {name!r}; it takes world_size, backend and timeout"
DISTRIBUTED_TOO_MANY_ARGUMENTS = "takes at most 3 positional arguments (world_size, backend, timeout), got {count}"
DISTRIBUTED_TWICE = "got world_size, backend or timeout both by position and by name ({name!r})"
DISTRIBUTED_BAD_WORLD_SIZE = "world_size must be a positive integer, got {value!r}"
DISTRIBUTED_BAD_BACKEND = "backend must be None or a backend name such as 'gloo' or 'nccl', got {value!r}"
DISTRIBUTED_BAD_TIMEOUT = "timeout must be a positive number of seconds, got {value!r}"
BAD_LAUNCH_VARIABLE = (
    "environment variable {name}={value!r} is not a non-negative integer; torchrun sets "
    "RANK, WORLD_SIZE, LOCAL_RANK and LOCAL_WORLD_SIZE, and torchcheck runs marked tests "
    "in place when RANK and WORLD_SIZE are set"
)
DISTRIBUTED_NCCL_NEEDS_CUDA = (
    "backend 'nccl' needs CUDA tensors; this run of the test is on {device}"
)
DISTRIBUTED_NO_MPS = "distributed tests run on cpu (gloo) or cuda (nccl); there is no backend for mps"
DISTRIBUTED_TOO_FEW_GPUS = "needs {needed} CUDA devices (one per rank), found {found}"
DISTRIBUTED_TOO_FEW_GPUS_REQUESTED = (
    "{source} asked for cuda, and {nodeid} is marked distributed(world_size={world_size}): "
    "it needs {needed} CUDA devices (one per rank), but this machine has {count}. "
    "Refusing to run: a job that asks for a device must not go green by skipping."
)
DISTRIBUTED_WORLD_MISMATCH = (
    "needs world_size={wanted}, but this launch has {actual} ranks (WORLD_SIZE={actual}); "
    "run it with {wanted} processes (torchrun --nproc-per-node {wanted})"
)


DISTRIBUTED_ARGUMENTS: tuple[str, ...] = ("world_size", "backend", "timeout")


class DistributedRequest(NamedTuple):
    """What ``@pytest.mark.distributed(world_size=2, backend=None, timeout=120)`` asks for."""

    world_size: int = 2
    backend: str | None = None
    timeout: float = 120.0


def parse_distributed_marker(
    args: Sequence[object], kwargs: Mapping[str, object], source: str
) -> DistributedRequest:
    """The marker's arguments, checked; ``SettingError`` names ``source`` and the problem."""
    values = dict(DistributedRequest()._asdict())
    try:
        values.update(_bind_marker_arguments(args, kwargs))
        return DistributedRequest(
            world_size=_positive_integer(values["world_size"]),
            backend=_backend_name(values["backend"]),
            timeout=_positive_seconds(values["timeout"]),
        )
    except ValueError as error:
        raise SettingError(DISTRIBUTED_ARGUMENT_MESSAGE.format(source=source, problem=error)) from None


def _bind_marker_arguments(args: Sequence[object], kwargs: Mapping[str, object]) -> dict[str, object]:
    if len(args) > len(DISTRIBUTED_ARGUMENTS):
        raise ValueError(DISTRIBUTED_TOO_MANY_ARGUMENTS.format(count=len(args)))
    bound = dict(zip(DISTRIBUTED_ARGUMENTS, args))
    for name, value in kwargs.items():
        if name not in DISTRIBUTED_ARGUMENTS:
            raise ValueError(DISTRIBUTED_UNKNOWN_ARGUMENT.format(name=name))
        if name in bound:
            raise ValueError(DISTRIBUTED_TWICE.format(name=name))
        bound[name] = value
    return bound


def _positive_integer(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(DISTRIBUTED_BAD_WORLD_SIZE.format(value=value))
    return value


def _backend_name(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValueError(DISTRIBUTED_BAD_BACKEND.format(value=value))
    return value.strip().lower()


def _positive_seconds(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(DISTRIBUTED_BAD_TIMEOUT.format(value=value))
    return float(value)


class LaunchedWorld(NamedTuple):
    """The ranks a launcher (torchrun, or torchcheck for a GPU test) started this
    process among, read from the environment."""

    rank: int
    world_size: int
    local_rank: int
    local_world_size: int


def launched_world(env: Mapping[str, str]) -> LaunchedWorld | None:
    """``RANK``/``WORLD_SIZE`` (and the ``LOCAL_`` ones, defaulting to them) when a
    launcher set them, else ``None``; a value that is not an integer is a SettingError."""
    if "RANK" not in env or "WORLD_SIZE" not in env:
        return None
    rank, world_size = _launch_integer(env, "RANK"), _launch_integer(env, "WORLD_SIZE")
    local_rank = _launch_integer(env, "LOCAL_RANK") if "LOCAL_RANK" in env else rank
    local_world = _launch_integer(env, "LOCAL_WORLD_SIZE") if "LOCAL_WORLD_SIZE" in env else world_size
    return LaunchedWorld(rank, world_size, local_rank, local_world)


def _launch_integer(env: Mapping[str, str], name: str) -> int:
    text = env[name].strip()
    if not text.isdigit():
        raise SettingError(BAD_LAUNCH_VARIABLE.format(name=name, value=env[name]))
    return int(text)


class DistributedPlan(NamedTuple):
    """How one distributed test runs: on which device kind and backend, for how long,
    and whether in place (its ranks already launched) or by starting them."""

    world_size: int
    backend: str
    timeout: float
    device: str  # "cpu" or "cuda" (each rank then uses its own GPU)
    in_place: bool
    skip_reason: str | None = None


def distributed_device(request: DistributedRequest, device_param: str | None, cuda_marked: bool) -> str:
    """The device kind a distributed test runs on: its ``torch_device`` run if it has
    one, else cuda when it asks for nccl or is marked cuda, else cpu."""
    if device_param is not None:
        return device_param
    return "cuda" if request.backend == "nccl" or cuda_marked else "cpu"


def plan_distributed(
    request: DistributedRequest,
    device: str,
    *,
    nodeid: str,
    requested: tuple[str, ...] | None,
    requested_source: str | None,
    found: FoundDevices,
    launched: LaunchedWorld | None,
) -> DistributedPlan:
    """Decide how a distributed test runs, or why it is skipped.

    Without a launcher the plugin starts ``world_size`` ranks itself; under one (torchrun)
    the test runs in place when the launch has the marker's world size, and is skipped
    with a reason otherwise. A cuda run needs one GPU per rank on this machine: when cuda
    was explicitly requested (``requested_source``) too few GPUs is a
    ``DeviceUnavailableError`` (exit code 4), otherwise a skip.
    """
    backend = request.backend or ("nccl" if device == "cuda" else "gloo")
    plan = DistributedPlan(request.world_size, backend, request.timeout, device, in_place=launched is not None)
    if device == "mps":
        return plan._replace(skip_reason=DISTRIBUTED_NO_MPS)
    if device != "cuda" and backend == "nccl":
        return plan._replace(skip_reason=DISTRIBUTED_NCCL_NEEDS_CUDA.format(device=device))
    if launched is not None and launched.world_size != request.world_size:
        reason = DISTRIBUTED_WORLD_MISMATCH.format(wanted=request.world_size, actual=launched.world_size)
        return plan._replace(skip_reason=reason)
    if device == "cuda":
        needed = launched.local_world_size if launched is not None else request.world_size
        if found.cuda_count < needed:
            if requested is not None and "cuda" in requested:
                raise DeviceUnavailableError(
                    DISTRIBUTED_TOO_FEW_GPUS_REQUESTED.format(
                        source=f"{requested_source}={','.join(requested)}",
                        nodeid=nodeid,
                        world_size=request.world_size,
                        needed=needed,
                        count=found.cuda_count,
                    )
                )
            reason = DISTRIBUTED_TOO_FEW_GPUS.format(needed=needed, found=found.describe())
            return plan._replace(skip_reason=reason)
    return plan


def rank_device(device: str, env: Mapping[str, str]) -> str:
    """The device one rank uses: its own GPU (``cuda:LOCAL_RANK``) on a cuda run."""
    if device != "cuda":
        return device
    local_rank = env.get("LOCAL_RANK", "0").strip()
    return f"cuda:{int(local_rank) if local_rank.isdigit() else 0}"
