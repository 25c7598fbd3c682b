"""Everything a resumed training run depends on, and what differs between two of them.

:func:`assert_resume_equivalent` captures a :class:`TrainingState` when the checkpoint is
saved and again from the fresh objects right after it is loaded. When training then
diverges, :func:`forgotten_pieces` compares the two and names what the checkpoint did
not restore: the model, optimizer state (per field and parameter), param groups,
scheduler, GradScaler, each RNG, or state outside all of them.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from torchcheck.checks._compare import first_mismatch, indent
from torchcheck.checks._registration import hook_recomputed_attributes
from torchcheck.checks.state import RngState, capture_rng_state

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = ["TrainingObjects", "TrainingState", "differing_generators", "forgotten_pieces"]

#: Python values a module attribute may hold that matter to training when they change
#: (a step counter, a warm-up factor) and that ``state_dict`` never holds.
_SIMPLE_VALUES = (bool, int, float, str)

_MODEL = (
    "- model: state_dict entry '{name}' is not the saved one (the model's state_dict is not "
    "saved or not loaded):\n{details}"
)
_OPTIMIZER_EMPTY = (
    "- optimizer state: none after loading, while the saved optimizer held {fields} for "
    "{count} parameters (optimizer.state_dict() is not saved or not loaded: {meaning})"
)
_OPTIMIZER_FIELD = "- optimizer state: '{field}' differs for {count} of {total} parameters, first '{name}':\n{details}"
_OPTIMIZER_FIELD_MISSING = "- optimizer state: '{field}' is missing for {count} of {total} parameters, first '{name}'"
_OPTIMIZER_GROUP = "- optimizer param_groups[{index}]['{key}']: {loaded} after loading, {saved} when saved"
_SCHEDULER = "- scheduler: {differences} (scheduler.state_dict() is not saved or not loaded)"
_SCALER = "- GradScaler: {differences} (scaler.state_dict() is not saved or not loaded)"
_RNG = (
    "- RNG: not restored for {generators}, so dropout, sampling and augmentation draw "
    "other numbers after resuming (save and load their states, e.g. rng_state_dict())"
)
_EXTRA_ATTRIBUTE = (
    "- extra state: model attribute '{name}' is {loaded!r} after loading, {saved!r} when "
    "saved; plain attributes are not in the state_dict (use a buffer, or "
    "get_extra_state/set_extra_state)"
)
_EXTRA_TENSOR = (
    "- extra state: plain tensor attribute '{name}' of the model is not the saved one; "
    "register it as a buffer so the state_dict holds it"
)

#: What forgetting an optimizer's state means, by the fields it holds.
_OPTIMIZER_MEANING: dict[str, str] = {
    "exp_avg": "Adam moments restart from zero",
    "momentum_buffer": "momentum restarts from zero",
    "square_avg": "RMSprop averages restart from zero",
    "sum": "Adagrad sums restart from zero",
}
_DEFAULT_MEANING = "its statistics restart"


@dataclass(frozen=True)
class TrainingObjects:
    """The live objects of one training run."""

    model: nn.Module
    optimizer: torch.optim.Optimizer
    scheduler: Any | None = None
    scaler: Any | None = None


@dataclass(frozen=True)
class TrainingState:
    """Copies of everything :class:`TrainingObjects` and the global RNGs hold."""

    model: dict[str, torch.Tensor]
    attributes: dict[str, Any]
    tensor_attributes: dict[str, torch.Tensor]
    optimizer: dict[str, Any]
    parameter_names: tuple[str, ...]
    scheduler: dict[str, Any] | None
    scaler: dict[str, Any] | None
    rng: RngState

    @classmethod
    def capture(cls, objects: TrainingObjects) -> TrainingState:
        model = objects.model
        return cls(
            model={key: value.detach().to("cpu", copy=True) for key, value in model.state_dict().items()},
            attributes=_simple_attributes(model),
            tensor_attributes=_tensor_attributes(model),
            optimizer=copy.deepcopy(objects.optimizer.state_dict()),
            parameter_names=_optimizer_parameter_names(model, objects.optimizer),
            scheduler=copy.deepcopy(objects.scheduler.state_dict()) if objects.scheduler is not None else None,
            scaler=copy.deepcopy(objects.scaler.state_dict()) if objects.scaler is not None else None,
            rng=capture_rng_state(),
        )


def forgotten_pieces(
    saved: TrainingState, loaded: TrainingState, generators_in_use: Collection[str], *, extra_state: bool = True
) -> list[str]:
    """One line (or block) per piece that differs between what was saved and what the
    fresh objects hold after loading, in the order model, optimizer, scheduler,
    GradScaler, RNG, extra state. Of the RNGs, only ``generators_in_use`` (named as
    :func:`differing_generators` names them) are compared: a generator the training
    never draws from cannot change the resumed run, so naming it would be a false lead.
    Extra state (plain module attributes) is left out without ``extra_state``: a cache
    rebuilt by the next forward differs too, and only a divergence shows it mattered."""
    checks: list[Callable[[TrainingState, TrainingState], list[str]]] = [
        _model_differences,
        _optimizer_differences,
        _scheduler_differences,
        _scaler_differences,
        functools.partial(_rng_differences, generators_in_use=generators_in_use),
    ]
    if extra_state:
        checks.append(_extra_state_differences)
    return [line for check in checks for line in check(saved, loaded)]


# -------------------------------------------------------------------- capture


def _simple_attributes(model: nn.Module) -> dict[str, Any]:
    found = {}
    for prefix, module in model.named_modules():
        for attr, value in vars(module).items():
            if not attr.startswith("_") and attr != "training" and isinstance(value, _SIMPLE_VALUES):
                found[f"{prefix}.{attr}" if prefix else attr] = value
    return found


def _tensor_attributes(model: nn.Module) -> dict[str, torch.Tensor]:
    """Plain tensor attributes, except those a forward pre-hook recomputes (derived
    from parameters and buffers, and stale in fresh objects until their first forward)."""
    derived = hook_recomputed_attributes(model)
    found = {}
    for prefix, module in model.named_modules():
        for attr, value in vars(module).items():
            name = f"{prefix}.{attr}" if prefix else attr
            if isinstance(value, torch.Tensor) and not isinstance(value, nn.Parameter) and name not in derived:
                found[name] = value.detach().to("cpu", copy=True)
    return found


def _optimizer_parameter_names(model: nn.Module, optimizer: torch.optim.Optimizer) -> tuple[str, ...]:
    """The parameter name of each index in ``optimizer.state_dict()['state']``."""
    names = {id(param): name for name, param in model.named_parameters()}
    params = [param for group in optimizer.param_groups for param in group["params"]]
    return tuple(names.get(id(param), f"parameter {index}") for index, param in enumerate(params))


# ---------------------------------------------------------------- differences


def _model_differences(saved: TrainingState, loaded: TrainingState) -> list[str]:
    for key, value in saved.model.items():
        found = first_mismatch(loaded.model.get(key), value, path=key, rtol=0, atol=0)
        if found is not None:
            return [_MODEL.format(name=key, details=indent(found.render(), "    "))]
    return []


def _optimizer_differences(saved: TrainingState, loaded: TrainingState) -> list[str]:
    return _optimizer_state_differences(saved, loaded) + _param_group_differences(saved, loaded)


def _optimizer_state_differences(saved: TrainingState, loaded: TrainingState) -> list[str]:
    saved_state: Mapping[Any, dict[str, Any]] = saved.optimizer.get("state", {})
    loaded_state: Mapping[Any, dict[str, Any]] = loaded.optimizer.get("state", {})
    if not saved_state:
        return []
    fields = list(dict.fromkeys(field for entry in saved_state.values() for field in entry))
    if not loaded_state:
        meaning = next((_OPTIMIZER_MEANING[f] for f in fields if f in _OPTIMIZER_MEANING), _DEFAULT_MEANING)
        listed = ", ".join(f"'{f}'" for f in fields)
        return [_OPTIMIZER_EMPTY.format(fields=listed, count=len(saved_state), meaning=meaning)]
    return [line for field in fields if (line := _field_difference(field, saved, saved_state, loaded_state))]


def _field_difference(
    field: str,
    saved: TrainingState,
    saved_state: Mapping[Any, dict[str, Any]],
    loaded_state: Mapping[Any, dict[str, Any]],
) -> str:
    missing, differing = [], []
    for index, entry in saved_state.items():
        if field not in entry:
            continue
        loaded_entry = loaded_state.get(index, {})
        if field not in loaded_entry:
            missing.append(index)
            continue
        found = first_mismatch(loaded_entry[field], entry[field], path=field, rtol=0, atol=0)
        if found is not None:
            differing.append((index, found))
    total = sum(1 for entry in saved_state.values() if field in entry)
    if missing:
        name = _parameter_name(saved, missing[0])
        return _OPTIMIZER_FIELD_MISSING.format(field=field, count=len(missing), total=total, name=name)
    if differing:
        index, found = differing[0]
        return _OPTIMIZER_FIELD.format(
            field=field, count=len(differing), total=total, name=_parameter_name(saved, index),
            details=indent(found.render(), "    "),
        )
    return ""


def _parameter_name(saved: TrainingState, index: Any) -> str:
    if isinstance(index, int) and 0 <= index < len(saved.parameter_names):
        return saved.parameter_names[index]
    return str(index)


def _param_group_differences(saved: TrainingState, loaded: TrainingState) -> list[str]:
    lines = []
    loaded_groups = loaded.optimizer.get("param_groups", [])
    for index, group in enumerate(saved.optimizer.get("param_groups", [])):
        other = loaded_groups[index] if index < len(loaded_groups) else {}
        for key, value in group.items():
            if key != "params" and first_mismatch(other.get(key), value, rtol=0, atol=0) is not None:
                loaded_value, saved_value = _short(other.get(key)), _short(value)
                lines.append(_OPTIMIZER_GROUP.format(index=index, key=key, loaded=loaded_value, saved=saved_value))
    return lines


def _scheduler_differences(saved: TrainingState, loaded: TrainingState) -> list[str]:
    differences = _dict_differences(saved.scheduler, loaded.scheduler)
    return [_SCHEDULER.format(differences=differences)] if differences else []


def _scaler_differences(saved: TrainingState, loaded: TrainingState) -> list[str]:
    differences = _dict_differences(saved.scaler, loaded.scaler)
    return [_SCALER.format(differences=differences)] if differences else []


def _dict_differences(saved: dict[str, Any] | None, loaded: dict[str, Any] | None) -> str:
    """``last_epoch is 0 after loading, 3 when saved; ...`` for the keys that differ."""
    if not saved or loaded is None:
        return ""
    parts = [
        f"{key} is {_short(loaded.get(key))} after loading, {_short(value)} when saved"
        for key, value in saved.items()
        if first_mismatch(loaded.get(key), value, rtol=0, atol=0) is not None
    ]
    return "; ".join(parts)


def _rng_differences(saved: TrainingState, loaded: TrainingState, generators_in_use: Collection[str]) -> list[str]:
    generators = [name for name in differing_generators(saved.rng, loaded.rng) if name in generators_in_use]
    return [_RNG.format(generators=", ".join(generators))] if generators else []


def differing_generators(saved: RngState, loaded: RngState) -> list[str]:
    """The names of the generators whose states differ ("python random", "numpy",
    "torch CPU", "CUDA device 0", ..., "MPS")."""
    names = []
    if saved.python != loaded.python:
        names.append("python random")
    if saved.numpy is not None and loaded.numpy is not None and not _numpy_states_equal(saved.numpy, loaded.numpy):
        names.append("numpy")
    if not torch.equal(saved.torch_cpu, loaded.torch_cpu):
        names.append("torch CPU")
    for index, (before, after) in enumerate(zip(saved.cuda, loaded.cuda)):
        if not torch.equal(before, after):
            names.append(f"CUDA device {index}")
    if saved.mps is not None and loaded.mps is not None and not torch.equal(saved.mps, loaded.mps):
        names.append("MPS")
    return names


def _numpy_states_equal(first: tuple[Any, ...], second: tuple[Any, ...]) -> bool:
    kind, keys, *rest = first
    other_kind, other_keys, *other_rest = second
    return kind == other_kind and bool((keys == other_keys).all()) and rest == other_rest


def _extra_state_differences(saved: TrainingState, loaded: TrainingState) -> list[str]:
    lines = [
        _EXTRA_ATTRIBUTE.format(name=name, loaded=loaded.attributes.get(name), saved=value)
        for name, value in saved.attributes.items()
        if loaded.attributes.get(name) != value
    ]
    lines += [
        _EXTRA_TENSOR.format(name=name)
        for name, value in saved.tensor_attributes.items()
        if first_mismatch(loaded.tensor_attributes.get(name), value, rtol=0, atol=0) is not None
    ]
    return lines


def _short(value: Any) -> str:
    """A value as a message shows it: numbers and short lists in full, tensors by size."""
    if isinstance(value, torch.Tensor):
        return repr(value.tolist()) if value.numel() <= 4 else f"a tensor of shape {tuple(value.shape)}"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (list, tuple)) and len(value) <= 4:
        return "[" + ", ".join(_short(item) for item in value) + "]"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."

