"""Whether an optimizer trains exactly the parameters of the model it was built for."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import torch
from torch import nn

from torchcheck.checks._compare import indent
from torchcheck.checks._registration import UnregisteredParameters, unregistered_parameters
from torchcheck.checks.errors import CheckFailed

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = ["assert_optimizer_covers"]

#: How many parameter names a message lists before it says "and N more".
_MAX_NAMES = 8

_HEADER = "assert_optimizer_covers: {optimizer} does not cover the trainable parameters of {model} exactly once:"

_MISSING = """\
{count} of {total} trainable parameters are in no param group ({numel} elements), so they \
never change: {names}
Build the optimizer from model.parameters() (or add the missing ones with \
optimizer.add_param_group)."""

_DUPLICATED = """\
{count} parameters are in the optimizer more than once: {names}
Each occurrence applies its own update (and weight decay), so these parameters move \
several times per step. Put every parameter in exactly one param group."""

_FROZEN = """\
{count} frozen parameters (requires_grad=False) are in the optimizer with a gradient left from \
before they were frozen: {names}
The optimizer steps them with that stale gradient at every step. Clear it \
(optimizer.zero_grad(set_to_none=True)) when freezing, or build the optimizer from \
[p for p in model.parameters() if p.requires_grad]."""

_FOREIGN = """\
the optimizer holds {count} parameters that {model} does not have ({numel} elements)\
{copies}.
The optimizer was built for another copy of the model: copy.deepcopy(model), a model \
re-created after the optimizer was built, or parameters moved with .to()/.cuda() into \
new tensors. Its steps change those other tensors, never this model's; build the \
optimizer after copying or moving the model."""

_COPIES = ", shaped like this model's {names}"

_UNREGISTERED = """\
{description}
The optimizer holds {missing} of them, so {these} never {change}."""


@dataclass
class _Coverage:
    """Where each parameter the optimizer holds sits, by identity."""

    occurrences: dict[int, list[str]] = field(default_factory=dict)
    tensors: dict[int, torch.Tensor] = field(default_factory=dict)
    order: list[int] = field(default_factory=list)


def assert_optimizer_covers(model: nn.Module, optimizer: torch.optim.Optimizer) -> None:
    """Every trainable parameter of ``model`` is in exactly one param group of
    ``optimizer``, compared by identity (tied weights count once).

    Fails naming the parameters that are missing, those that appear more than once,
    frozen parameters (``requires_grad=False``) that the optimizer holds with a stale
    gradient (it steps them), and
    parameters the optimizer holds that ``model`` does not: the sign of an optimizer
    built before the model was copied.
    """
    names = {id(param): name for name, param in model.named_parameters()}
    params = {id(param): param for param in model.parameters()}
    coverage = _coverage(optimizer)
    trainable = [key for key, param in params.items() if param.requires_grad]
    unregistered = unregistered_parameters(model)
    problems = [
        _unregistered_problem(unregistered, coverage),
        _missing_problem(names, params, trainable, coverage),
        _duplicated_problem(names, coverage),
        _frozen_problem(names, params, coverage),
        _foreign_problem(model, names, params, _without(coverage, unregistered)),
    ]
    found = [problem for problem in problems if problem]
    if found:
        header = _HEADER.format(optimizer=type(optimizer).__name__, model=type(model).__name__)
        raise CheckFailed("\n".join([header, *(indent(problem) for problem in found)]))


def _coverage(optimizer: torch.optim.Optimizer) -> _Coverage:
    coverage = _Coverage()
    for group_index, group in enumerate(optimizer.param_groups):
        for position, param in enumerate(group["params"]):
            key = id(param)
            if key not in coverage.occurrences:
                coverage.order.append(key)
            coverage.occurrences.setdefault(key, []).append(f"param_groups[{group_index}]['params'][{position}]")
            coverage.tensors[key] = param
    return coverage


def _unregistered_problem(unregistered: UnregisteredParameters | None, coverage: _Coverage) -> str:
    """Trainable parameters hidden in Python containers that the optimizer lacks: an
    optimizer built from model.parameters() never sees them."""
    if unregistered is None:
        return ""
    missing = [t for t in unregistered.tensors if id(t) not in coverage.occurrences]
    if not missing:
        return ""
    count = len(unregistered.tensors)
    held = "none" if len(missing) == count else f"only {count - len(missing)}"
    these = "they" if len(missing) == count else f"the other {len(missing)}"
    return _UNREGISTERED.format(description=unregistered.describe(), missing=held, these=these, change="change")


def _without(coverage: _Coverage, unregistered: UnregisteredParameters | None) -> _Coverage:
    """``coverage`` without the unregistered parameters: held by the optimizer, they are
    the model's own, not tensors of a copy."""
    if unregistered is None:
        return coverage
    hidden = {id(t) for t in unregistered.tensors}
    return _Coverage(
        {k: v for k, v in coverage.occurrences.items() if k not in hidden},
        {k: v for k, v in coverage.tensors.items() if k not in hidden},
        [k for k in coverage.order if k not in hidden],
    )


def _missing_problem(
    names: dict[int, str], params: dict[int, nn.Parameter], trainable: list[int], coverage: _Coverage
) -> str:
    missing = [key for key in trainable if key not in coverage.occurrences]
    if not missing:
        return ""
    return _MISSING.format(
        count=len(missing),
        total=len(trainable),
        numel=f"{sum(params[key].numel() for key in missing):,}",
        names=_listing(names[key] for key in missing),
    )


def _duplicated_problem(names: dict[int, str], coverage: _Coverage) -> str:
    duplicated = [key for key in coverage.order if len(coverage.occurrences[key]) > 1]
    if not duplicated:
        return ""
    described = (
        f"'{names.get(key, _shape(coverage.tensors[key]))}' at {', '.join(coverage.occurrences[key])}"
        for key in duplicated
    )
    return _DUPLICATED.format(count=len(duplicated), names=_listing(described, quote=False))


def _frozen_problem(names: dict[int, str], params: dict[int, nn.Parameter], coverage: _Coverage) -> str:
    # A frozen parameter without a gradient is skipped by every torch optimizer (weight decay
    # included): holding it is harmless. One that still has a gradient from before it was
    # frozen is stepped with that stale gradient at every step.
    frozen = [key for key in coverage.order if key in params and not params[key].requires_grad and params[key].grad is not None]
    if not frozen:
        return ""
    return _FROZEN.format(count=len(frozen), names=_listing(names[key] for key in frozen))


def _foreign_problem(
    model: nn.Module, names: dict[int, str], params: dict[int, nn.Parameter], coverage: _Coverage
) -> str:
    foreign = [key for key in coverage.order if key not in params]
    if not foreign:
        return ""
    look_alikes = _look_alikes([coverage.tensors[key] for key in foreign], model, coverage)
    return _FOREIGN.format(
        count=len(foreign),
        model=type(model).__name__,
        numel=f"{sum(coverage.tensors[key].numel() for key in foreign):,}",
        copies=_COPIES.format(names=_listing(look_alikes)) if look_alikes else "",
    )


def _look_alikes(foreign: list[torch.Tensor], model: nn.Module, coverage: _Coverage) -> list[str]:
    """Names of the model's parameters that the foreign tensors copy, matched by shape
    in parameter order among those the optimizer lacks (a deep copy keeps the order)."""
    uncovered = [(name, p) for name, p in model.named_parameters() if id(p) not in coverage.occurrences]
    matched = []
    for tensor in foreign:
        for index, (name, param) in enumerate(uncovered):
            if param.shape == tensor.shape:
                matched.append(name)
                del uncovered[index]
                break
    return matched


def _listing(items: Iterable[str], *, quote: bool = True) -> str:
    items = list(items)
    shown = [f"'{item}'" if quote else item for item in items[:_MAX_NAMES]]
    if len(items) > _MAX_NAMES:
        shown.append(f"and {len(items) - _MAX_NAMES} more")
    return ", ".join(shown)


def _shape(tensor: torch.Tensor) -> str:
    return f"tensor of shape {tuple(tensor.shape)}"
