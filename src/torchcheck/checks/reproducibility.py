"""Same seed, same result: finds hidden global state and nondeterministic kernels.

When two runs differ, two more runs tell *why*. Every random generator is replayed
identically in both (the global ones are seeded anyway; a ``generator=`` argument and
``numpy.random.default_rng()`` without a seed get generators seeded in order of first
use), and every torch operation is fingerprinted. If the replayed runs agree, random
numbers the seed does not reach were the cause. If not, the first operation that
differs says which: identical inputs but different outputs is a nondeterministic kernel;
different inputs (or different operations) means values from outside torch differ.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from torchcheck.checks._compare import (
    callable_name,
    compare_structures,
    detach_to_cpu,
    indent,
    warn_uncompared,
)
from torchcheck.checks._localize_setting import localize_level
from torchcheck.checks.errors import CheckFailed
from torchcheck.checks.localize import where_it_starts
from torchcheck.checks.seeding import seeded

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = ["assert_reproducible"]

_NOT_REPRODUCIBLE = """\
assert_reproducible: {name} is not reproducible: run {run} of {runs} differs from run 1 \
at {path} (same seed {seed}, deterministic algorithms on).
{details}
{cause}{where}"""

_CAUSE_RANDOM = """\
Cause: random number generation. Two more runs with every generator replayed \
identically ({replayed}) agree, so {name} draws from a generator that the seed does not \
reach or that keeps its state from one run to the next. Seed it inside the function \
(torch.Generator().manual_seed(seed), np.random.default_rng(seed)) or use the global \
generators, which the seed reaches."""

_CAUSE_KERNEL = """\
Cause: a nondeterministic kernel. With every generator replayed identically, \
{operation} (operation {index} of the run) gives different results for identical \
inputs. Use a deterministic alternative for it (see torch.use_deterministic_algorithms), \
or compare with atol/rtol if the differences are rounding."""

_CAUSE_OUTSIDE = """\
Cause: not random number generation and not a kernel: with every generator replayed \
identically, {how}. Values reaching torch from outside differ between runs: state \
carried from one call to the next (global counters, caches, a model that keeps \
training), time, os.urandom, or python/numpy generators created without a seed."""

_OUTSIDE_INPUTS = "{operation} (operation {index} of the run) already receives different inputs"
_OUTSIDE_PATHS = "the runs take different paths: operation {index} is {first} in one run and {second} in the other"
_OUTSIDE_LENGTH = "one run performs {first} torch operations and the other {second}"
_OUTSIDE_PYTHON = "every torch operation agrees, so the difference is in values computed outside torch"

_NONDETERMINISTIC_OP = """\
assert_reproducible: {name} uses an operation without a deterministic implementation \
(run {run} of {runs}, seed {seed}):
  {error}"""


def assert_reproducible(
    fn: Callable[[], Any],
    *,
    seed: int = 0,
    runs: int = 2,
    atol: float = 0.0,
    rtol: float = 0.0,
    localize: str | None = None,
) -> None:
    """Call ``fn()`` ``runs`` times, each under :func:`seeded` with the same ``seed`` and
    deterministic algorithms, and require results equal to the first run's within
    ``atol``/``rtol`` (bit-exact by default). Results may be any nested structure
    (tensors, numbers, ``ModelOutput``, HF caches...). The failure names the first
    differing output path, the difference, and whether random number generation, a
    nondeterministic kernel or state from outside torch caused it, and (unless
    ``localize="off"``) a "Where it starts" section: the module call and, with ``"op"``,
    the operation and source line where two more runs part ways (see
    :func:`localize_divergence`). ``localize`` defaults to ``--torchcheck-localize``, env
    ``TORCHCHECK_LOCALIZE``, then ``"op"``.
    """
    if runs < 2:
        raise ValueError(f"runs must be at least 2, got {runs}")
    level = localize_level(localize)
    name = f"{callable_name(fn)}()"
    first = _run(fn, name, 1, runs, seed)
    for run in range(2, runs + 1):
        comparison = compare_structures(_run(fn, name, run, runs, seed), first, rtol=rtol, atol=atol)
        mismatch = comparison.mismatch
        if mismatch is not None:
            raise CheckFailed(
                _NOT_REPRODUCIBLE.format(
                    name=name,
                    run=run,
                    runs=runs,
                    path=mismatch.path,
                    seed=seed,
                    details=indent(mismatch.render()),
                    cause=_diagnose(fn, name, seed, rtol, atol),
                    where=_where_it_starts(fn, seed, level, rtol, atol),
                )
            )
        if run == runs:
            warn_uncompared("assert_reproducible", comparison)


def _run(fn: Callable[[], Any], name: str, run: int, runs: int, seed: int) -> Any:
    with seeded(seed, deterministic=True):
        try:
            return detach_to_cpu(fn())
        except RuntimeError as error:
            if "deterministic" not in str(error):
                raise
            raise CheckFailed(
                _NONDETERMINISTIC_OP.format(name=name, run=run, runs=runs, seed=seed, error=error)
            ) from error


# ------------------------------------------------------------------- diagnosis


def _where_it_starts(fn: Callable[[], Any], seed: int, level: str, rtol: float, atol: float) -> str:
    def seeded_run() -> Any:
        with seeded(seed, deterministic=True):
            return fn()

    section = where_it_starts(seeded_run, seeded_run, level=level, rtol=rtol, atol=atol)
    return f"\n{section}" if section else ""


def _diagnose(fn: Callable[[], Any], name: str, seed: int, rtol: float, atol: float) -> str:
    """Which of the three causes made two runs differ, from two replayed runs."""
    first_result, first = _replayed_run(fn, seed)
    second_result, second = _replayed_run(fn, seed)
    if compare_structures(second_result, first_result, rtol=rtol, atol=atol).equal:
        return _CAUSE_RANDOM.format(name=name, replayed=first.replayed_description())
    return _first_divergence(first.records, second.records)


def _first_divergence(first: list[_OpRecord], second: list[_OpRecord]) -> str:
    for index, (a, b) in enumerate(zip(first, second), start=1):
        if a == b:
            continue
        if a.operation != b.operation:
            how = _OUTSIDE_PATHS.format(index=index, first=a.operation, second=b.operation)
        elif a.inputs != b.inputs:
            how = _OUTSIDE_INPUTS.format(operation=a.operation, index=index)
        else:
            return _CAUSE_KERNEL.format(operation=a.operation, index=index)
        return _CAUSE_OUTSIDE.format(how=how)
    if len(first) != len(second):
        return _CAUSE_OUTSIDE.format(how=_OUTSIDE_LENGTH.format(first=len(first), second=len(second)))
    return _CAUSE_OUTSIDE.format(how=_OUTSIDE_PYTHON)


def _replayed_run(fn: Callable[[], Any], seed: int) -> tuple[Any, _OpRecorder]:
    recorder = _OpRecorder(seed)
    with seeded(seed, deterministic=True), _seeded_numpy_default_rng(recorder), recorder:
        try:
            result = detach_to_cpu(fn())
        except Exception as error:  # a diagnosis run must not hide the real finding
            result = error
    return result, recorder


@dataclass(frozen=True)
class _OpRecord:
    operation: str
    inputs: tuple[Any, ...]
    outputs: tuple[Any, ...]


@dataclass(eq=False)  # a mode is compared and hashed by identity
class _OpRecorder(TorchDispatchMode):
    """Fingerprints every torch operation and replaces each ``generator=`` argument by
    a generator seeded from ``seed`` and the order in which it was first used."""

    seed: int
    records: list[_OpRecord] = field(default_factory=list)
    generators: dict[int, torch.Generator] = field(default_factory=dict)
    numpy_generators: int = 0

    def __post_init__(self) -> None:
        super().__init__()

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: Any = None) -> Any:
        kwargs = dict(kwargs or {})
        if isinstance(kwargs.get("generator"), torch.Generator):
            kwargs["generator"] = self._replayed(kwargs["generator"])
        inputs = _fingerprints((args, {k: v for k, v in kwargs.items() if k != "generator"}))
        output = func(*args, **kwargs)
        self.records.append(_OpRecord(str(func), inputs, _fingerprints(output)))
        return output

    def _replayed(self, generator: torch.Generator) -> torch.Generator:
        key = id(generator)
        if key not in self.generators:
            replacement = torch.Generator(device=generator.device)
            replacement.manual_seed(self.seed + 7919 * (len(self.generators) + 1))
            self.generators[key] = replacement
        return self.generators[key]

    def replayed_description(self) -> str:
        parts = ["the global generators"]
        if self.generators:
            parts.append(f"{len(self.generators)} torch.Generator passed as generator=")
        if self.numpy_generators:
            parts.append(f"{self.numpy_generators} numpy.random.default_rng() created without a seed")
        return ", ".join(parts)


@contextlib.contextmanager
def _seeded_numpy_default_rng(recorder: _OpRecorder) -> Iterator[None]:
    """While active, ``numpy.random.default_rng()`` without a seed is seeded in order."""
    np_random = sys.modules.get("numpy.random")
    if np_random is None:
        yield
        return
    original = np_random.default_rng

    def default_rng(seed: Any = None) -> Any:
        if seed is not None:
            return original(seed)
        recorder.numpy_generators += 1
        return original(recorder.seed + 104729 * recorder.numpy_generators)

    np_random.default_rng = default_rng
    try:
        yield
    finally:
        np_random.default_rng = original


def _fingerprints(value: Any) -> tuple[Any, ...]:
    leaves, _ = tree_flatten(value)
    return tuple(_fingerprint(leaf) for leaf in leaves)


def _fingerprint(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return (tuple(value.shape), value.dtype, _checksum(value))
    if isinstance(value, (bool, int, float, complex, str, type(None), torch.dtype, torch.device)):
        return value
    return type(value).__name__


_BIT_VIEWS: dict[int, torch.dtype] = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def _checksum(tensor: torch.Tensor) -> tuple[int, int] | None:
    """Two sums over the raw bits: equal tensors always agree, different ones almost
    never do. ``None`` where there are no bits to read (meta, sparse...)."""
    try:
        data = tensor.detach()
        if data.is_complex():
            data = torch.view_as_real(data)
        bits = data.contiguous().reshape(-1).view(_BIT_VIEWS[data.element_size()]).to(torch.int64)
        weights = torch.arange(bits.numel(), dtype=torch.int64, device=bits.device) % 65521 + 1
        return int(bits.sum()), int((bits * weights).sum())
    except (RuntimeError, KeyError, NotImplementedError, TypeError):
        return None
