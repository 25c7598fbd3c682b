"""What ``torch.autograd.gradcheck`` will cost, measured before it runs.

Full gradcheck perturbs every input element twice (two forwards each) and takes one
backward per output element, so a module with 12k parameters means some 25k forwards:
hours for a real layer. Fast mode (``fast_mode=True``) checks one random projection of
the Jacobian instead: two forwards per input tensor and one backward per output tensor.
:func:`affordable_gradcheck_options` times a warm forward and backward, estimates both,
and picks fast mode or fails with the estimate and the way out before any time is spent.
"""

from __future__ import annotations

import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch.autograd.gradcheck import GradcheckError

from torchcheck.checks.errors import CheckFailed

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = ["DEFAULT_MAX_SECONDS", "GradcheckCost", "affordable_gradcheck_options", "run_gradcheck"]

#: Longest estimated gradcheck run that starts without being asked for explicitly.
DEFAULT_MAX_SECONDS = 30.0
#: gradcheck's own work per perturbed element or output row (indexing, copying,
#: comparing), measured on CPU (0.8e-4 to 1.5e-4 s on a busy 2-core machine): it
#: dominates for small layers.
_OVERHEAD_SECONDS = 1e-4
#: Timed forward/backward pairs after the warm-up; the quickest counts, since a busy
#: machine only ever makes a run slower.
_TIMED_RUNS = 5
#: Measured time after which one more run would not make the estimate any better.
_ENOUGH_MEASURED_SECONDS = 0.5
#: Over the limit, timing goes on for this share of it (within the bounds below) before
#: the check switches to fast mode or fails: on a busy machine a multi-threaded op waits
#: milliseconds for a descheduled thread, for a while, and a few runs can all be 100 times
#: slower than gradcheck's thousands of later ones.
_REMEASURE_SHARE = 0.05
_REMEASURE_BOUNDS = (0.25, 0.5)

_SWITCHED_TO_FAST = """\
assert_gradcheck: a full gradcheck of {name} would take about {full} ({cost}); using \
fast_mode=True instead (about {fast}), which checks a random projection of each \
Jacobian. Pass fast_mode=False with max_seconds=None to run the full check anyway."""

_TOO_EXPENSIVE = """\
assert_gradcheck: {mode} gradcheck of {name} would take about {estimate} ({cost}), over \
the limit of max_seconds={limit:g}. Nothing was run.
Check a smaller problem: a single layer or a small config instead of the whole model, \
fewer or smaller inputs{fast_hint}; or pass max_seconds=None to run it anyway."""


_FAST_MODE_MISMATCH = """\
Jacobian mismatch for output {output} with respect to input {input} in fast mode (a \
random projection of the Jacobian). The full Jacobians were not computed, to keep the \
check within its time limit."""

#: The torch function that recomputes every Jacobian in slow mode once fast mode has
#: found a mismatch, only to print them: as slow as the full check that fast mode avoids.
_SLOW_MODE_REPORT = "_run_slow_mode_and_get_error"
#: How far above the function gradcheck calls that step's frame may be (7 in torch 2.13).
_REPORT_DEPTH = 16


@dataclass(frozen=True)
class GradcheckCost:
    """Measured unit costs and the sizes that multiply them."""

    forward_seconds: float
    backward_seconds: float
    input_elements: int
    input_tensors: int
    output_elements: int
    output_tensors: int

    def full_seconds(self, gradgrad: bool) -> float:
        per_input = 2 * self.forward_seconds + _OVERHEAD_SECONDS
        # each Jacobian row is computed twice, to catch a nondeterministic backward
        per_output = 2 * self.backward_seconds + _OVERHEAD_SECONDS
        seconds = self.input_elements * per_input + self.output_elements * per_output
        if gradgrad:  # the same again on the gradient function, whose inputs include grad_outputs
            elements = self.input_elements + self.output_elements
            seconds += 2 * elements * (self.forward_seconds + self.backward_seconds)
            seconds += self.input_elements * 2 * self.backward_seconds
        return seconds

    def fast_seconds(self, gradgrad: bool) -> float:
        seconds = 2 * self.input_tensors * self.forward_seconds + self.output_tensors * self.backward_seconds
        return 3 * seconds if gradgrad else seconds

    def describe(self) -> str:
        return (
            f"{self.input_elements:,} input and parameter elements in {self.input_tensors} tensors, "
            f"{self.output_elements:,} output elements; one forward {_duration(self.forward_seconds)}, "
            f"one backward {_duration(self.backward_seconds)}"
        )


def affordable_gradcheck_options(
    name: str,
    fn: Callable[..., Sequence[torch.Tensor]],
    leaves: tuple[torch.Tensor, ...],
    opts: dict[str, Any],
    gradgrad: bool,
) -> dict[str, Any]:
    """``opts`` for gradcheck without ``max_seconds`` (the limit, default
    :data:`DEFAULT_MAX_SECONDS`; ``None`` for none): unchanged when affordable, with
    ``fast_mode=True`` (and a warning) when only fast mode is, else a CheckFailed with
    the estimate and what to do."""
    opts = dict(opts)
    limit = opts.pop("max_seconds", DEFAULT_MAX_SECONDS)
    if limit is None:
        return opts
    fast_requested = opts.get("fast_mode")
    estimate = GradcheckCost.fast_seconds if fast_requested else GradcheckCost.full_seconds
    cost = measure_cost(fn, leaves)
    if estimate(cost, gradgrad) > limit:
        cost = measure_cost(fn, leaves, until=lambda measured: estimate(measured, gradgrad) <= limit,
                            seconds=_remeasure_seconds(limit))
    if fast_requested:
        _fail_over(limit, cost.fast_seconds(gradgrad), "a fast-mode", name, cost, fast_hint="")
        return opts
    full = cost.full_seconds(gradgrad)
    if full <= limit:
        return opts
    if fast_requested is None and cost.fast_seconds(gradgrad) <= limit:
        warnings.warn(
            _SWITCHED_TO_FAST.format(
                name=name, full=_duration(full), cost=cost.describe(), fast=_duration(cost.fast_seconds(gradgrad))
            ),
            RuntimeWarning,
            stacklevel=3,
        )
        return {**opts, "fast_mode": True}
    fast_hint = "" if fast_requested is None else ", or fast_mode=True"
    _fail_over(limit, full, "a full", name, cost, fast_hint)
    return opts


def _fail_over(limit: float, estimate: float, mode: str, name: str, cost: GradcheckCost, fast_hint: str) -> None:
    if estimate > limit:
        raise CheckFailed(
            _TOO_EXPENSIVE.format(
                mode=mode, name=name, estimate=_duration(estimate), cost=cost.describe(), limit=limit, fast_hint=fast_hint,
            )
        )


def measure_cost(
    fn: Callable[..., Sequence[torch.Tensor]],
    leaves: tuple[torch.Tensor, ...],
    until: Callable[[GradcheckCost], bool] | None = None,
    seconds: float = _ENOUGH_MEASURED_SECONDS,
) -> GradcheckCost:
    """Time a forward (with autograd recording, as gradcheck runs it) and a backward,
    the quickest of several runs after one of each untimed: the first pays one-time costs
    (lazy initialisation, kernel selection, autograd's worker threads) that none of
    gradcheck's many later calls pay, and timing it would overestimate a small check many
    times over. Runs go on until ``until`` holds for the cost so far (by default: after
    :data:`_TIMED_RUNS` runs), or ``seconds`` have been measured."""
    forward: list[float] = []
    backward: list[float] = []
    with torch.enable_grad():
        outputs = fn(*leaves)
        _backward(outputs, leaves)
        while True:
            start = time.perf_counter()
            outputs = fn(*leaves)
            forward.append(time.perf_counter() - start)
            start = time.perf_counter()
            _backward(outputs, leaves)
            backward.append(time.perf_counter() - start)
            cost = GradcheckCost(
                forward_seconds=min(forward),
                backward_seconds=min(backward),
                input_elements=sum(leaf.numel() for leaf in leaves),
                input_tensors=len(leaves),
                output_elements=sum(o.numel() for o in outputs),
                output_tensors=len(outputs),
            )
            done = until(cost) if until is not None else len(forward) >= _TIMED_RUNS
            if done or sum(forward) + sum(backward) >= seconds:
                return cost


def _remeasure_seconds(limit: float) -> float:
    low, high = _REMEASURE_BOUNDS
    return min(max(_REMEASURE_SHARE * limit, low), high)


def _backward(outputs: Sequence[torch.Tensor], leaves: tuple[torch.Tensor, ...]) -> None:
    """One backward from every differentiable output to every leaf that requires grad."""
    differentiable = [o for o in outputs if o.requires_grad]
    inputs = [leaf for leaf in leaves if leaf.requires_grad]
    if differentiable and inputs:
        total = sum((o * torch.ones_like(o)).sum() for o in differentiable)
        torch.autograd.grad(total, inputs, allow_unused=True)


def _duration(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    if seconds >= 60:
        return f"{seconds / 60:.0f} min"
    if seconds >= 1:
        return f"{seconds:.1f} s"
    milliseconds = seconds * 1000
    return f"{milliseconds:.0f} ms" if milliseconds >= 10 else f"{milliseconds:.2g} ms"


class _FastModeMismatch(Exception):
    def __init__(self, input_index: Any, output_index: Any) -> None:
        super().__init__()
        self.input_index = input_index
        self.output_index = output_index


def run_gradcheck(fn: Callable[..., Any], leaves: tuple[torch.Tensor, ...], opts: dict[str, Any]) -> None:
    """``torch.autograd.gradcheck(fn, leaves, raise_exception=True, **opts)``. In fast
    mode a mismatch raises a :class:`GradcheckError` at once, instead of after torch
    recomputes every full Jacobian for its message. (Where torch names that step
    differently, it runs as torch does: slower, never wrong.)"""
    if not opts.get("fast_mode"):
        torch.autograd.gradcheck(fn, leaves, raise_exception=True, **opts)
        return

    def guarded(*args: Any) -> Any:
        report = _slow_mode_report_frame()
        if report is not None:
            raise _FastModeMismatch(report.f_locals.get("input_idx"), report.f_locals.get("output_idx"))
        return fn(*args)

    try:
        torch.autograd.gradcheck(guarded, leaves, raise_exception=True, **opts)
    except _FastModeMismatch as mismatch:
        message = _FAST_MODE_MISMATCH.format(input=mismatch.input_index, output=mismatch.output_index)
        raise GradcheckError(message) from None


def _slow_mode_report_frame() -> Any:
    frame = sys._getframe(2)
    for _ in range(_REPORT_DEPTH):
        if frame is None:
            return None
        if frame.f_code.co_name == _SLOW_MODE_REPORT:
            return frame
        frame = frame.f_back
    return None
