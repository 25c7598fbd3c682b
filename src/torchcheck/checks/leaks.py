"""Step-over-step growth of what autograd keeps alive: the classic "loss kept with its
graph" leak (``total += loss``, ``history.append(loss)``) and caches of graph tensors."""

from __future__ import annotations

import gc
import weakref
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import torch

from torchcheck.checks._compare import callable_name
from torchcheck.checks.errors import CheckFailed
from torchcheck.checks.state import SavedTensorsHooks, capture_saved_tensors_hooks, preserved_state

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = ["assert_no_graph_leak"]

_LEAK = """\
assert_no_graph_leak: {name} leaves more autograd state alive after every step \
({steps} steps after one warm-up step):
{details}
New tensors with history since the previous step: {new}
A loss or output is kept with its graph (history.append(loss), total += loss, a cache \
of outputs). Keep loss.item() or loss.detach() instead."""

_HOOKS_LEFT = """\
assert_no_graph_leak: {name} pushes saved-tensors hooks and leaves them installed \
({hooks} after {calls} calls): every later backward in this process would go through \
them. Push them with `with torch.autograd.graph.saved_tensors_hooks(pack, unpack):` \
around the code that needs them. The check removed them again; it could not count \
saved tensors while they sat above its own hooks."""

_HOOKS_POPPED = """\
assert_no_graph_leak: {name} pops saved-tensors hooks it did not push (the check's own \
among them), so the check could not count saved tensors; it put the hooks back. Pop \
only what the step pushed: `with torch.autograd.graph.saved_tensors_hooks(pack, unpack):`."""

_METRIC_LABELS: dict[str, str] = {
    "tensors": "live tensors with grad_fn",
    "nodes": "autograd graph nodes reachable from them",
    "saved_bytes": "bytes held by saved-for-backward tensors",
    "cuda_bytes": "CUDA allocated bytes",
}


class _Saved:
    """Stands in for a tensor saved for backward; lives exactly as long as the graph
    slot that holds it, so counting live instances measures retained saved tensors.

    It holds the tensor's data without its history (``detach()`` shares storage):
    holding the tensor itself would tie an output saved by its own node (sigmoid,
    tanh, exp) to that node in a reference cycle no garbage collection breaks, and a
    recurrent state computed with history and never backpropagated would then stay
    alive, and be reported, because of the check alone. Autograd re-attaches the
    history when it unpacks the tensor."""

    __slots__ = ("tensor", "nbytes", "__weakref__")

    def __init__(self, tensor: torch.Tensor) -> None:
        self.tensor = tensor.detach()
        self.nbytes = tensor.numel() * tensor.element_size()


@dataclass(frozen=True)
class _Measurement:
    tensors: int
    nodes: int
    saved_bytes: int
    cuda_bytes: int
    tensor_ids: frozenset[int]


def assert_no_graph_leak(fn: Callable[[], Any], steps: int = 5) -> None:
    """Call ``fn()`` (one training or eval step) once to warm up, then ``steps`` times,
    measuring after each call (and a garbage collection) the live tensors that carry
    autograd history, the graph nodes reachable from them, the bytes of tensors saved
    for backward and, on CUDA, allocated bytes. Fails when any of them grows at every
    step, and when the step leaves a saved-tensors hook pushed (or pops one it did not
    push). RNG, global torch state and the saved-tensors hooks are restored afterwards.
    """
    if steps < 2:
        raise ValueError(f"steps must be at least 2, got {steps}")
    saved: weakref.WeakSet[_Saved] = weakref.WeakSet()

    def pack(tensor: torch.Tensor) -> _Saved:
        holder = _Saved(tensor)
        saved.add(holder)
        return holder

    def unpack(holder: _Saved) -> torch.Tensor:
        return holder.tensor

    with preserved_state():  # also puts back the saved-tensors hooks exactly as they were
        before = capture_saved_tensors_hooks()
        # Entered and never exited: exiting pops whatever is on top, which is the step's
        # own hook when it left one pushed. preserved_state() restores the whole stack.
        torch.autograd.graph.saved_tensors_hooks(pack, unpack).__enter__()
        measurements, new_description = _measure_steps(fn, steps, saved)
        after = capture_saved_tensors_hooks()
    _check_hooks_left(fn, before, after, (pack, unpack), calls=steps + 1)
    growing = [key for key in _METRIC_LABELS if _grows_every_step([getattr(m, key) for m in measurements])]
    if growing:
        details = "\n".join(
            f"  {_METRIC_LABELS[key]}: {', '.join(str(getattr(m, key)) for m in measurements)}" for key in growing
        )
        name = f"{callable_name(fn)}()"
        raise CheckFailed(_LEAK.format(name=name, steps=steps, details=details, new=new_description))


def _measure_steps(
    fn: Callable[[], Any], steps: int, saved: weakref.WeakSet[_Saved]
) -> tuple[list[_Measurement], str]:
    """One warm-up call, then ``steps`` measured calls; the measurements and what the
    last call added."""
    measurements = []
    new_description = "none"
    fn()
    previous = _measure(saved)
    for _ in range(steps):
        fn()
        current = _measure(saved)
        measurements.append(current)
        new_description = _describe_new(current.tensor_ids - previous.tensor_ids)
        previous = current
    return measurements, new_description


def _check_hooks_left(
    fn: Callable[[], Any],
    before: SavedTensorsHooks | None,
    after: SavedTensorsHooks | None,
    own: tuple[Any, Any],
    calls: int,
) -> None:
    """Fail when the steps changed the saved-tensors hooks below or above the check's."""
    if before is None or after is None:
        return
    expected = (*before.stack, own)
    name = f"{callable_name(fn)}()"
    if after.stack[: len(expected)] != expected:
        raise CheckFailed(_HOOKS_POPPED.format(name=name))
    if len(after.stack) > len(expected):
        raise CheckFailed(_HOOKS_LEFT.format(name=name, hooks=after.describe(len(expected)), calls=calls))


def _grows_every_step(values: list[int]) -> bool:
    return all(later > earlier for earlier, later in zip(values, values[1:]))


def _live_graph_tensors() -> Iterator[torch.Tensor]:
    # type() rather than isinstance(): isinstance reads __class__, which deprecated
    # objects and dead weak proxies override with warnings or errors.
    for obj in gc.get_objects():
        if issubclass(type(obj), torch.Tensor) and obj.grad_fn is not None:
            yield obj


def _count_nodes(roots: list[Any]) -> int:
    # Node wrappers are kept alive until the count is done: torch may build a new Python
    # wrapper on every next_functions access and free it as soon as it is dropped, and a
    # later wrapper at the same address would then pass for a node already counted.
    seen: dict[int, Any] = {}
    stack = [root for root in roots if root is not None]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen[id(node)] = node
        stack.extend(next_fn for next_fn, _ in getattr(node, "next_functions", ()) if next_fn is not None)
    return len(seen)


def _measure(saved: weakref.WeakSet[_Saved]) -> _Measurement:
    gc.collect()
    tensors = list(_live_graph_tensors())
    cuda_bytes = torch.cuda.memory_allocated() if torch.cuda.is_initialized() else 0
    result = _Measurement(
        tensors=len(tensors),
        nodes=_count_nodes([t.grad_fn for t in tensors]),
        saved_bytes=sum(holder.nbytes for holder in list(saved)),
        cuda_bytes=cuda_bytes,
        tensor_ids=frozenset(id(t) for t in tensors),
    )
    _DESCRIPTIONS.clear()
    _DESCRIPTIONS.update({id(t): f"{tuple(t.shape)} {type(t.grad_fn).__name__}" for t in tensors})
    return result


# id -> "shape GradFn" of the tensors seen by the latest measurement (kept as text so
# the check itself holds no reference to the user's tensors).
_DESCRIPTIONS: dict[int, str] = {}


def _describe_new(ids: frozenset[int]) -> str:
    if not ids:
        return "none"
    counts = Counter(_DESCRIPTIONS.get(i, "?") for i in ids)
    return ", ".join(f"{n} x {what}" for what, n in counts.most_common(5))
