"""Parameters a model holds without registering them, and attributes its hooks recompute.

A module kept in a Python ``list`` or ``dict`` attribute (``self.layers = [nn.Linear(4, 4)]``
instead of ``nn.ModuleList``), or a parameter in one (instead of ``nn.ParameterList``), is
invisible to ``model.parameters()``, ``state_dict()``, ``.to()`` and ``.eval()``: an
optimizer built from ``model.parameters()`` never trains it and a checkpoint never saves
it. Several checks name it so that the user reads the cause, not its symptom.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from torchcheck.checks.errors import CheckFailed

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = [
    "UnregisteredParameters",
    "fail_on_unregistered_parameters",
    "hook_recomputed_attributes",
    "unregistered_parameters",
]

_CONTAINERS = (list, tuple, dict)
#: How deep nested lists/dicts are searched (a list of lists of layers is common enough).
_MAX_DEPTH = 3

_DESCRIPTION = (
    "{count} parameters ({numel} elements) are not registered with {model}: {places}. "
    "A Python {kinds} hides them from model.parameters(), state_dict(), .to() and .eval(); "
    "use nn.ModuleList/nn.ModuleDict for modules and nn.ParameterList/nn.ParameterDict for "
    "parameters."
)


_NOT_SEEN = """\
{check}: {description}
Gradients may reach them, but nothing that reads model.parameters() sees them: an \
optimizer built from it never trains them, and this check cannot judge them."""


@dataclass(frozen=True)
class UnregisteredParameters:
    """Trainable tensors reachable only through plain Python containers."""

    model: str
    places: dict[str, list[torch.Tensor]]  # 'encoder.blocks' -> the tensors found there
    kinds: dict[str, str]  # 'encoder.blocks' -> 'list'

    @property
    def tensors(self) -> list[torch.Tensor]:
        """Each tensor once, also when several containers hold it."""
        unique = {id(tensor): tensor for tensors in self.places.values() for tensor in tensors}
        return list(unique.values())

    def describe(self) -> str:
        """One sentence for a failure message: how many, where, and the fix."""
        places = ", ".join(
            f"'{place}' ({len(tensors)} in a {self.kinds[place]})" for place, tensors in self.places.items()
        )
        kinds = " or ".join(sorted(set(self.kinds.values())))
        return _DESCRIPTION.format(
            count=len(self.tensors),
            numel=f"{sum(t.numel() for t in self.tensors):,}",
            model=self.model,
            places=places,
            kinds=kinds,
        )


def unregistered_parameters(model: nn.Module, *, trainable_only: bool = True) -> UnregisteredParameters | None:
    """The parameters (and, with ``trainable_only``, only those that require grad) that
    ``model`` reaches through list/tuple/dict attributes of its modules but does not
    register; ``None`` when there are none. A list that only refers to registered
    modules (``self.stages = [self.a, self.b]``) is fine and not reported."""
    registered = {id(param) for param in model.parameters()}
    places: dict[str, list[torch.Tensor]] = {}
    kinds: dict[str, str] = {}
    for prefix, module in model.named_modules():
        for attr, value in vars(module).items():
            if attr.startswith("_") or not isinstance(value, _CONTAINERS):
                continue
            found = [
                tensor
                for tensor in _tensors_in(value, 0)
                if id(tensor) not in registered and (tensor.requires_grad or not trainable_only)
            ]
            if found:
                place = f"{prefix}.{attr}" if prefix else attr
                places[place] = list({id(t): t for t in found}.values())
                kinds[place] = type(value).__name__
    if not places:
        return None
    return UnregisteredParameters(type(model).__name__, places, kinds)


def fail_on_unregistered_parameters(check: str, model: nn.Module) -> None:
    """Raise :class:`CheckFailed` naming trainable parameters ``model`` does not register."""
    unregistered = unregistered_parameters(model)
    if unregistered is not None:
        raise CheckFailed(_NOT_SEEN.format(check=check, description=unregistered.describe()))


def _tensors_in(value: Any, depth: int) -> Iterator[torch.Tensor]:
    if isinstance(value, nn.Module):
        yield from value.parameters()
    elif isinstance(value, nn.Parameter) or (isinstance(value, torch.Tensor) and value.requires_grad and value.is_leaf):
        yield value
    elif isinstance(value, _CONTAINERS) and depth < _MAX_DEPTH:
        items = value.values() if isinstance(value, dict) else value
        for item in items:
            yield from _tensors_in(item, depth + 1)


def hook_recomputed_attributes(model: nn.Module) -> set[str]:
    """Tensor attributes that a forward pre-hook recomputes from parameters and buffers
    before every forward, such as ``weight`` under the hook-based
    ``torch.nn.utils.spectral_norm`` or ``weight_norm``: derived values, not state, and
    stale until the next forward."""
    found = set()
    for prefix, module in model.named_modules():
        for hook in module._forward_pre_hooks.values():
            name = getattr(hook, "name", None)
            if isinstance(name, str) and isinstance(vars(module).get(name), torch.Tensor):
                found.add(f"{prefix}.{name}" if prefix else name)
    return found
