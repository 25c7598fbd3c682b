"""A ``torch.distributed.checkpoint`` save at one world size loads at another (resharding)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch import nn
from torch.distributed.checkpoint.state_dict import StateDictOptions, get_state_dict, set_state_dict

from torchcheck.checks._compare import first_mismatch, indent
from torchcheck.checks._inputs import instantiate
from torchcheck.checks._ranks import (
    Participation,
    agreed,
    check_strategy,
    check_world_size,
    inner_module,
    on_ranks,
    rank_device,
    refuse_unshardable,
    shard_model,
)
from torchcheck.checks._train_mode import module_list
from torchcheck.checks.seeding import seed_everything
from torchcheck.checks.state import preserved_state

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = ["assert_sharded_checkpoint_roundtrip"]

_CHECK = "assert_sharded_checkpoint_roundtrip"
_PREFIX = _CHECK + ": "
_SAVE_SEED = 0
_LOAD_SEED = 1  # the fresh objects start from other values, so loading must change them
_OPTIMIZER_STEPS = 2  # so that the optimizer has state (moments, step counts) to save
_STRATEGY_NAMES = {"ddp": "DDP", "fsdp": "FSDP2 (fully_shard)"}

_DIFFERS = _PREFIX + (
    "a checkpoint saved with torch.distributed.checkpoint from {strategy} on {saved} and "
    "loaded on {loaded} into freshly initialised objects does not give back the saved state:\n"
    "{problems}"
)
_RAISED = _PREFIX + "{action} with {strategy} on {ranks} raised {error}"
_KEYS_MISSING = "- model: {keys} saved but missing after loading"
_KEYS_UNEXPECTED = "- model: {keys} after loading but never saved"
_MODEL_DIFFERS = "- model '{name}' is not the saved tensor:\n{details}"
_OPTIMIZER_MISSING = "- optimizer state of '{name}': {fields} saved but missing after loading"
_OPTIMIZER_DIFFERS = "- optimizer state '{field}' of '{name}' is not the saved value:\n{details}"
_GROUP_DIFFERS = "- optimizer param_groups[{index}]['{key}']: {loaded!r} after loading, {saved!r} when saved"
_GROUPS_COUNT = "- optimizer: {loaded} param groups after loading, {saved} when saved"


@dataclass(frozen=True)
class _Setup:
    make_model: nn.Module | Callable[[], nn.Module]
    make_optimizer: Callable[[nn.Module], Any]
    save_world_size: int
    load_world_size: int
    strategy: str

    @property
    def strategy_name(self) -> str:
        return _STRATEGY_NAMES[self.strategy]


@dataclass
class _State:
    """Whole (unsharded) model and optimizer state dicts on rank 0, or what went wrong."""

    model: dict[str, Any] = field(default_factory=dict)
    optimizer: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


def assert_sharded_checkpoint_roundtrip(
    make_model: nn.Module | Callable[[], nn.Module],
    make_optimizer: Callable[[nn.Module], Any],
    *,
    save_world_size: int = 2,
    load_world_size: int = 1,
    strategy: str = "fsdp",
) -> None:
    """A model and optimizer sharded with ``strategy`` (``"fsdp"``: FSDP2 ``fully_shard``;
    ``"ddp"``: ``DistributedDataParallel``) on ``save_world_size`` ranks, with optimizer
    state from two steps, are saved with ``torch.distributed.checkpoint`` (the state
    dicts of ``get_state_dict``); freshly built ones, initialised with another seed and
    sharded on ``load_world_size`` ranks, load it (``dcp.load`` then ``set_state_dict``).
    The whole model and optimizer state after loading must equal what was saved, tensor
    for tensor: resharding must lose or change nothing.

    ``make_optimizer`` may return ``(optimizer, scheduler)``; only the optimizer is
    checkpointed. Called from a single process, the check starts
    ``max(save_world_size, load_world_size)`` CPU ranks with a gloo process group; inside
    a process group with at least that many ranks it runs on the caller's ranks (the
    first ``save_world_size`` save, the first ``load_world_size`` load), which must see
    the same file system. On failure the message names each parameter and optimizer
    field that did not come back, or the error saving or loading raised.
    """
    save_world_size = check_world_size(_CHECK, "save_world_size", save_world_size)
    load_world_size = check_world_size(_CHECK, "load_world_size", load_world_size)
    strategy = check_strategy(_CHECK, strategy)
    refuse_unshardable(_CHECK, make_model, strategy)
    setup = _Setup(make_model, make_optimizer, save_world_size, load_world_size, strategy)
    on_ranks(_CHECK, lambda _rank: _verdict(setup), max(save_world_size, load_world_size))


def _verdict(setup: _Setup) -> str | None:
    with preserved_state():
        directory = _shared_directory()
        try:
            saving = Participation(setup.save_world_size)
            loading = Participation(setup.load_world_size)
            saved = _save(setup, saving, directory) if saving.member else _State()
            dist.barrier()
            loaded = _load(setup, loading, directory) if loading.member else _State()
            return agreed(_differences(setup, saved, loaded) if dist.get_rank() == 0 else None)
        finally:
            dist.barrier()
            if dist.get_rank() == 0:
                shutil.rmtree(directory, ignore_errors=True)


def _shared_directory() -> str:
    """A temporary directory rank 0 creates; every rank gets its path."""
    holder = [tempfile.mkdtemp(prefix="torchcheck-dcp-") if dist.get_rank() == 0 else None]
    dist.broadcast_object_list(holder, src=0)
    return str(holder[0])


def _build(setup: _Setup, part: Participation, seed: int) -> tuple[nn.Module, torch.optim.Optimizer]:
    device = rank_device()
    seed_everything(seed)
    model = shard_model(instantiate(setup.make_model).to(device), setup.strategy, part.group, device)
    made = setup.make_optimizer(model)
    return model, made[0] if isinstance(made, tuple) else made


def _save(setup: _Setup, part: Participation, directory: str) -> _State:
    try:
        model, optimizer = _build(setup, part, _SAVE_SEED)
        _give_optimizer_state(model, optimizer)
        dcp.save(_sharded_state(model, optimizer), checkpoint_id=directory, process_group=part.group)
        return _whole_state(model, optimizer)
    except Exception as error:  # noqa: BLE001 - saving failing is the finding
        return _State(error=_action_error(setup, "saving", setup.save_world_size, error))


def _load(setup: _Setup, part: Participation, directory: str) -> _State:
    try:
        model, optimizer = _build(setup, part, _LOAD_SEED)
        state = _sharded_state(model, optimizer)
        dcp.load(state, checkpoint_id=directory, process_group=part.group)
        set_state_dict(model, optimizer, model_state_dict=state["model"], optim_state_dict=state["optimizer"])
        return _whole_state(model, optimizer)
    except Exception as error:  # noqa: BLE001 - loading failing is the finding
        return _State(error=_action_error(setup, "loading", setup.load_world_size, error))


def _give_optimizer_state(model: nn.Module, optimizer: torch.optim.Optimizer) -> None:
    """Two optimizer steps with gradients that depend only on each parameter's values
    (``sin``), so the state is the same whatever the sharding."""
    for _ in range(_OPTIMIZER_STEPS):
        for parameter in inner_module(model).parameters():
            if parameter.requires_grad:
                parameter.grad = parameter.detach().sin()
        optimizer.step()
    optimizer.zero_grad(set_to_none=True)


def _sharded_state(model: nn.Module, optimizer: torch.optim.Optimizer) -> dict[str, Any]:
    model_state, optimizer_state = get_state_dict(model, optimizer)
    return {"model": model_state, "optimizer": optimizer_state}


def _whole_state(model: nn.Module, optimizer: torch.optim.Optimizer) -> _State:
    """The unsharded state dicts, gathered on rank 0 (empty elsewhere)."""
    options = StateDictOptions(full_state_dict=True, cpu_offload=True)
    model_state, optimizer_state = get_state_dict(model, optimizer, options=options)
    return _State(dict(model_state), dict(optimizer_state))


def _action_error(setup: _Setup, action: str, world_size: int, error: Exception) -> str:
    message = f"{type(error).__name__}: {error}".strip()
    return _RAISED.format(action=action, strategy=setup.strategy_name, ranks=_ranks(world_size), error=message)


def _ranks(count: int) -> str:
    return f"{count} rank{'s' if count != 1 else ''}"


# ---------------------------------------------------------------- comparison


def _differences(setup: _Setup, saved: _State, loaded: _State) -> str | None:
    for state in (saved, loaded):
        if state.error is not None:
            return state.error
    problems = _model_differences(saved.model, loaded.model) + _optimizer_differences(saved.optimizer, loaded.optimizer)
    if not problems:
        return None
    return _DIFFERS.format(
        strategy=setup.strategy_name,
        saved=_ranks(setup.save_world_size),
        loaded=_ranks(setup.load_world_size),
        problems="\n".join(problems),
    )


def _model_differences(saved: dict[str, Any], loaded: dict[str, Any]) -> list[str]:
    problems = []
    missing = [key for key in saved if key not in loaded]
    unexpected = [key for key in loaded if key not in saved]
    if missing:
        problems.append(_KEYS_MISSING.format(keys=module_list(missing)))
    if unexpected:
        problems.append(_KEYS_UNEXPECTED.format(keys=module_list(unexpected)))
    for name, value in saved.items():
        if name in loaded:
            mismatch = first_mismatch(loaded[name], value, path=name, rtol=0, atol=0)
            if mismatch is not None:
                problems.append(_MODEL_DIFFERS.format(name=name, details=indent(mismatch.render(), "    ")))
    return problems


def _optimizer_differences(saved: dict[str, Any], loaded: dict[str, Any]) -> list[str]:
    problems = []
    loaded_state = loaded.get("state", {})
    for name, fields in saved.get("state", {}).items():
        other = loaded_state.get(name, {})
        missing = [key for key in fields if key not in other]
        if missing:
            problems.append(_OPTIMIZER_MISSING.format(name=name, fields=module_list(missing)))
        for key, value in fields.items():
            if key in other:
                mismatch = first_mismatch(other[key], value, path=key, rtol=0, atol=0)
                if mismatch is not None:
                    details = indent(mismatch.render(), "    ")
                    problems.append(_OPTIMIZER_DIFFERS.format(field=key, name=name, details=details))
    return problems + _param_group_differences(saved.get("param_groups", []), loaded.get("param_groups", []))


def _param_group_differences(saved: list[dict[str, Any]], loaded: list[dict[str, Any]]) -> list[str]:
    if len(saved) != len(loaded):
        return [_GROUPS_COUNT.format(saved=len(saved), loaded=len(loaded))]
    problems = []
    for index, (saved_group, loaded_group) in enumerate(zip(saved, loaded)):
        for key, value in saved_group.items():
            other = loaded_group.get(key)
            if first_mismatch(other, value, path=key, rtol=0, atol=0) is not None:
                problems.append(_GROUP_DIFFERS.format(index=index, key=key, loaded=other, saved=value))
    return problems

