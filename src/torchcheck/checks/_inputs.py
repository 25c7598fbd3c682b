"""How checks call the user's model: inputs, keyword inputs, factories and compiled models.

Every check that runs a model takes ``*inputs``. A single ``dict`` (or a
``transformers.BatchEncoding``, or any other mapping) is passed as keyword arguments,
``model(**inputs)``, which is how tokenizer output reaches an HF model; anything else is
passed positionally. A model whose ``forward`` takes the dict itself as its one
argument still gets it positionally.

A check's model argument may be a factory (a class or a callable with no required
arguments) or an ``nn.Module`` instance; :func:`instantiate` turns either into a module
the check may change (an instance is deep-copied). ``torch.compile`` wrappers are
unwrapped where a check needs the plain module (forward hooks, the meta device).
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from torchcheck.checks._compare import map_tensors

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = [
    "ModelInputs",
    "call_model",
    "instantiate",
    "is_model_factory",
    "strip_compiled",
    "unwrap_compiled",
]

_COMPILED_ATTRIBUTE = "_orig_mod"


@dataclass(frozen=True)
class ModelInputs:
    """The positional and keyword arguments of one model call."""

    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_inputs(cls, inputs: tuple[Any, ...], target: Callable[..., Any] | None = None) -> ModelInputs:
        """Split a check's ``*inputs``: one mapping becomes keyword arguments unless
        ``target``'s signature shows that it takes the mapping as a single argument."""
        if len(inputs) == 1 and isinstance(inputs[0], Mapping) and _passed_as_keywords(inputs[0], target):
            return cls((), dict(inputs[0]))
        return cls(tuple(inputs), {})

    def call(self, target: Callable[..., Any]) -> Any:
        return target(*self.args, **self.kwargs)

    def map(self, fn: Callable[[torch.Tensor], Any]) -> ModelInputs:
        """The same call with every tensor ``t`` replaced by ``fn(t)``."""
        return ModelInputs(map_tensors(self.args, fn), map_tensors(self.kwargs, fn))

    def values(self) -> list[Any]:
        """Positional then keyword values, in order (see :meth:`replaced`)."""
        return [*self.args, *self.kwargs.values()]

    def replaced(self, values: list[Any]) -> ModelInputs:
        """The same call with :meth:`values` replaced, position for position."""
        count = len(self.args)
        return ModelInputs(tuple(values[:count]), dict(zip(self.kwargs, values[count:])))

    def labelled(self) -> list[tuple[str, Any]]:
        """``("input[0]", x)`` for positional and ``("input['ids']", ids)`` for keyword
        arguments: how messages name an input."""
        return [(f"input[{i}]", value) for i, value in enumerate(self.args)] + [
            (f"input[{key!r}]", value) for key, value in self.kwargs.items()
        ]

    def __bool__(self) -> bool:
        return bool(self.args or self.kwargs)


def call_model(model: Callable[..., Any], inputs: tuple[Any, ...]) -> Any:
    """``model(*inputs)``, or ``model(**inputs[0])`` for a single dict/``BatchEncoding``."""
    return ModelInputs.from_inputs(inputs, model).call(model)


def _passed_as_keywords(mapping: Mapping[Any, Any], target: Callable[..., Any] | None) -> bool:
    if not all(isinstance(key, str) for key in mapping):
        return False
    signature = _signature(target)
    if signature is None:
        return True
    try:
        signature.bind(**mapping)
    except TypeError:
        try:
            signature.bind(mapping)
        except TypeError:
            return True  # neither fits: let the model's own error speak for the keywords
        return False
    return True


def _signature(target: Callable[..., Any] | None) -> inspect.Signature | None:
    if target is None:
        return None
    if isinstance(target, nn.Module):
        target = unwrap_compiled(target).forward
    try:
        return inspect.signature(target)
    except (TypeError, ValueError):
        return None


# ----------------------------------------------------------------------- models


def is_model_factory(obj: Any) -> bool:
    """A model class, or a callable that takes no required arguments (``make_model``)."""
    if isinstance(obj, type):
        return issubclass(obj, nn.Module)
    if isinstance(obj, nn.Module) or not callable(obj):
        return False
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return False
    parameters = signature.parameters.values()
    required = [
        p for p in parameters if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    return not required and not any(p.kind is p.VAR_POSITIONAL for p in parameters)


def instantiate(model_or_factory: nn.Module | Callable[[], nn.Module]) -> nn.Module:
    """A module the caller owns: a deep copy of an instance, or a newly built one."""
    if isinstance(model_or_factory, nn.Module):
        return copy.deepcopy(model_or_factory)
    model = model_or_factory()
    if not isinstance(model, nn.Module):
        raise TypeError(
            f"the model factory returned {type(model).__name__}, not an nn.Module; pass a "
            "model class, a function that builds the model, or a model instance"
        )
    return model


def unwrap_compiled(model: nn.Module) -> nn.Module:
    """The module inside ``torch.compile(model)`` (an ``OptimizedModule``), else ``model``."""
    while isinstance(model, nn.Module) and isinstance(getattr(model, _COMPILED_ATTRIBUTE, None), nn.Module):
        model = getattr(model, _COMPILED_ATTRIBUTE)
    return model


def strip_compiled(model: nn.Module) -> nn.Module:
    """``model`` with every ``torch.compile`` wrapper inside it replaced by the module it
    wraps, and ``Module.compile()`` undone, so forward hooks run eagerly. Changes
    ``model`` in place: call it only on a model the check owns."""
    model = unwrap_compiled(model)
    for module in list(model.modules()):
        if getattr(module, "_compiled_call_impl", None) is not None:
            module._compiled_call_impl = None
        for name, child in list(module.named_children()):
            plain = unwrap_compiled(child)
            if plain is not child:
                setattr(module, name, plain)
    return model
