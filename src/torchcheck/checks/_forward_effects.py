"""What a forward pass does besides computing its output, seen from module hooks.

Checks that compare one batch with its parts assume a forward has no side effects and
that every term it computes is a sum or mean over samples. Both fail on correct models:

- **buffers updated by every forward**: spectral norm's power iteration (``weight_u``),
  BatchNorm's running statistics and counters. Accumulating over k micro-batches updates
  them k times, one step over the batch once.
- **batch-coupled terms**: a scalar such as a router's load-balancing loss, or a loss
  averaged over the tokens of padded sequences, is a function of the whole batch, not a
  mean of per-sample terms: the micro-batches' values do not add up to the batch's.

:func:`observed_forwards` hooks every module of a model while the user's code runs:
it records which buffers a module's forward changed, and every scalar floating tensor a
forward produced (in its output, or assigned to an attribute such as ``self.aux_loss``),
keyed by module path, call number within the model's forward and name. With
``pin_buffers`` every call of a module starts from the buffers the module had when
observing began, so k forwards leave them as one does: a power iteration does not
depend on the data, so both runs then agree. Terms the user declares batch-coupled
(``batch_coupled``: fnmatch patterns of a term's name or its module's path) are
multiplied by zero in the output, keeping the graph.
"""

from __future__ import annotations

import contextlib
import fnmatch
import math
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from torchcheck.checks._compare import iter_tensors, map_tensors

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = [
    "BatchCoupled",
    "CoupledTerm",
    "ForwardEffects",
    "apply_batch_coupled",
    "coupled_terms",
    "describe_coupled",
    "describe_updated_buffers",
    "observed_forwards",
]

#: ``batch_coupled=``: patterns of terms to zero, or a function that switches the
#: coupled terms off in a freshly built model.
BatchCoupled = Sequence[str] | Callable[[nn.Module], Any] | None

#: (module path, call number within one forward of the model, term name)
TermKey = tuple[str, int, str]

#: Buffers up to this size are compared by value (in-kernel updates such as
#: BatchNorm's running mean do not bump the version counter); larger ones by version.
_COMPARED_BY_VALUE = 1 << 20

#: How far a batch's term may be from the mean (or sum) of its parts' and still count
#: as that mean (or sum): float32 rounding of differently sized reductions stays far below.
_TERM_RTOL = 1e-4
_TERM_ATOL = 1e-6


@dataclass
class ForwardEffects:
    """What the observed forwards did."""

    #: Buffer (full name) -> module path, for buffers some forward changed.
    updated_buffers: dict[str, str] = field(default_factory=dict)
    #: Scalar terms computed in forward, per key, one value per forward of the model.
    terms: dict[TermKey, list[float]] = field(default_factory=lambda: defaultdict(list))
    #: Labels of the terms zeroed as declared batch-coupled.
    zeroed: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class CoupledTerm:
    """A scalar the batch computes differently from its parts."""

    module: str
    name: str
    whole: float
    parts: tuple[float, ...]

    @property
    def label(self) -> str:
        return f"{self.name} of '{self.module}'" if self.module else f"{self.name} of the model"


def apply_batch_coupled(model: nn.Module, batch_coupled: BatchCoupled) -> None:
    """Call a function-form declaration on a freshly built model."""
    if callable(batch_coupled):
        batch_coupled(model)


@contextlib.contextmanager
def observed_forwards(
    model: nn.Module, *, pin_buffers: bool = False, batch_coupled: BatchCoupled = None
) -> Iterator[ForwardEffects]:
    effects = ForwardEffects()
    patterns = () if batch_coupled is None or callable(batch_coupled) else tuple(batch_coupled)
    observer = _Observer(model, effects, pin_buffers, patterns)
    handles = observer.install()
    try:
        yield effects
    finally:
        for handle in handles:
            handle.remove()


class _Observer:
    def __init__(self, model: nn.Module, effects: ForwardEffects, pin: bool, patterns: tuple[str, ...]) -> None:
        self.model = model
        self.effects = effects
        self.pin = pin
        self.patterns = patterns
        self.paths = {id(module): path for path, module in model.named_modules()}
        self.start = {name: buffer.detach().clone() for name, buffer in model.named_buffers()} if pin else {}
        self.calls: dict[str, int] = defaultdict(int)
        self.before: dict[int, list[dict[str, Any]]] = defaultdict(list)

    def install(self) -> list[Any]:
        handles = []
        for module in self.model.modules():
            handles.append(module.register_forward_pre_hook(self.pre_hook, prepend=True))
            handles.append(module.register_forward_hook(self.post_hook))
        return handles

    # -------------------------------------------------------------- hooks

    def pre_hook(self, module: nn.Module, _inputs: Any) -> None:
        path = self.paths.get(id(module), "")
        if module is self.model:
            self.calls.clear()
        self.calls[path] += 1
        if self.pin:
            self._restore_pinned(module, path)
        self.before[id(module)].append(
            {"buffers": _buffer_marks(module), "attributes": _tensor_attributes(module)}
        )

    def post_hook(self, module: nn.Module, _inputs: Any, output: Any) -> Any:
        path = self.paths.get(id(module), "")
        stack = self.before.get(id(module))
        if not stack:
            return None
        before = stack.pop()
        for name in _changed_buffers(module, before["buffers"]):
            self.effects.updated_buffers[_join(path, name)] = path
        call = self.calls[path]
        output = self._output_terms(module, path, call, output)
        self._attribute_terms(module, path, call, before["attributes"])
        return output

    # ------------------------------------------------------------- helpers

    def _restore_pinned(self, module: nn.Module, path: str) -> None:
        with torch.no_grad():
            for name, buffer in module.named_buffers(recurse=False):
                full = _join(path, name)
                if full in self.effects.updated_buffers and full in self.start and buffer is not None:
                    buffer.copy_(self.start[full])

    def _declared(self, path: str, name: str) -> bool:
        return any(fnmatch.fnmatchcase(name, p) or (path and fnmatch.fnmatchcase(path, p)) for p in self.patterns)

    def _output_terms(self, module: nn.Module, path: str, call: int, output: Any) -> Any:
        zeroed: set[int] = set()
        for name, tensor in _scalar_terms(output):
            if self._declared(path, name):
                zeroed.add(id(tensor))
                self.effects.zeroed.add(_term_label(path, name))
            else:
                self.effects.terms[(path, call, name)].append(float(tensor.detach()))
        if not zeroed:
            return None
        return map_tensors(output, lambda tensor: tensor * 0 if id(tensor) in zeroed else tensor)

    def _attribute_terms(self, module: nn.Module, path: str, call: int, before: dict[str, int]) -> None:
        for name, tensor in _tensor_attributes(module, as_ids=False).items():
            if before.get(name) == id(tensor) or not _is_scalar_term(tensor):
                continue
            if self._declared(path, name):
                object.__setattr__(module, name, tensor * 0)
                self.effects.zeroed.add(_term_label(path, name))
            else:
                self.effects.terms[(path, call, name)].append(float(tensor.detach()))


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _term_label(path: str, name: str) -> str:
    return f"{name} of '{path}'" if path else f"{name} of the model"


def _buffer_marks(module: nn.Module) -> dict[str, tuple[int, int, torch.Tensor | None]]:
    """Per own buffer: identity, version, and a copy when small enough to compare."""
    marks = {}
    for name, buffer in module.named_buffers(recurse=False):
        if buffer is None:
            continue
        copy = buffer.detach().clone() if buffer.numel() <= _COMPARED_BY_VALUE else None
        marks[name] = (id(buffer), buffer._version, copy)
    return marks


def _changed_buffers(module: nn.Module, marks: dict[str, tuple[int, int, torch.Tensor | None]]) -> list[str]:
    changed = []
    for name, buffer in module.named_buffers(recurse=False):
        if buffer is None or name not in marks:
            continue
        identity, version, copy = marks[name]
        if identity != id(buffer) or version != buffer._version:
            changed.append(name)
        elif copy is not None and not torch.equal(copy, buffer.detach()):
            changed.append(name)
    return changed


def _tensor_attributes(module: nn.Module, as_ids: bool = True) -> dict[str, Any]:
    """Plain tensor attributes (not parameters or buffers) of ``module``."""
    found = {name: value for name, value in vars(module).items() if isinstance(value, torch.Tensor)}
    return {name: id(value) for name, value in found.items()} if as_ids else found


def _is_scalar_term(tensor: torch.Tensor) -> bool:
    return tensor.dim() == 0 and tensor.is_floating_point() and not isinstance(tensor, nn.Parameter)


def _scalar_terms(output: Any) -> list[tuple[str, torch.Tensor]]:
    """``(name, tensor)`` for each scalar floating tensor of a forward's output; the name
    is the key or field (``aux_loss``), else the position (``output[1]``)."""
    terms = []
    for path, tensor in iter_tensors(output, "output"):
        if _is_scalar_term(tensor):
            terms.append((_term_name(path), tensor))
    return terms


def _term_name(path: str) -> str:
    """``output.aux_loss`` -> ``aux_loss``; ``output['loss']`` -> ``loss``; ``output[1]`` stays."""
    if path.startswith("output."):
        return path[len("output.") :]
    if path.startswith("output['") and path.endswith("']"):
        return path[len("output['") : -2]
    return path


# --------------------------------------------------------------- comparison


def coupled_terms(whole: ForwardEffects, parts: Sequence[ForwardEffects] | ForwardEffects) -> list[CoupledTerm]:
    """Terms whose value on the batch is neither the mean nor the sum of their values
    on its parts. ``parts`` is one record holding a value per part (accumulation: one
    forward per micro-batch) or one record per part (data parallel: one per rank)."""
    found = []
    for key, values in whole.terms.items():
        part_values = _part_values(key, parts)
        if len(values) != 1 or len(part_values) < 2:
            continue
        if not _mean_or_sum(values[0], part_values):
            found.append(CoupledTerm(key[0], key[2], values[0], tuple(part_values)))
    return sorted(found, key=lambda term: (-term.module.count(".") - bool(term.module), term.module, term.name))


def _part_values(key: TermKey, parts: Sequence[ForwardEffects] | ForwardEffects) -> list[float]:
    if isinstance(parts, ForwardEffects):
        return list(parts.terms.get(key, []))
    values = []
    for part in parts:
        found = part.terms.get(key, [])
        if len(found) != 1:
            return []
        values.extend(found)
    return values


def _mean_or_sum(whole: float, parts: list[float]) -> bool:
    if not all(math.isfinite(v) for v in (whole, *parts)):
        return True  # not finite: some other finding explains it
    total = math.fsum(parts)
    return any(
        abs(whole - candidate) <= _TERM_ATOL + _TERM_RTOL * abs(candidate) for candidate in (total / len(parts), total)
    )


def describe_coupled(terms: list[CoupledTerm], parts: str, limit: int = 3) -> str:
    """Lines naming each coupled term with its values."""
    lines = []
    for term in terms[:limit]:
        shown = ", ".join(f"{value:.6g}" for value in term.parts)
        lines.append(f"  {term.label}: {term.whole:.6g} on the whole batch; {shown} on the {parts}")
    if len(terms) > limit:
        lines.append(f"  ... and {len(terms) - limit} more")
    return "\n".join(lines)


def describe_updated_buffers(effects: ForwardEffects, names: Sequence[str] | None = None, limit: int = 3) -> str:
    """``'weight_u' of 'encoder.0'`` for buffers a forward updated."""
    chosen = [name for name in (names if names is not None else sorted(effects.updated_buffers))
              if name in effects.updated_buffers]
    shown = []
    for name in chosen[:limit]:
        module = effects.updated_buffers[name]
        short = name[len(module) + 1 :] if module else name
        shown.append(f"'{short}' of '{module}'" if module else f"'{short}' of the model")
    more = f" and {len(chosen) - limit} more" if len(chosen) > limit else ""
    return ", ".join(shown) + more
