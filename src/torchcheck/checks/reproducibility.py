"""Same seed, same result: finds hidden global state and nondeterministic kernels."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from torchcheck.checks._compare import callable_name, detach_to_cpu, first_mismatch, indent
from torchcheck.checks.errors import CheckFailed
from torchcheck.checks.seeding import seeded

__all__ = ["assert_reproducible"]

_NOT_REPRODUCIBLE = """\
assert_reproducible: {name} is not reproducible: run {run} of {runs} differs from run 1 \
at {path} (same seed {seed}, deterministic algorithms on).
{details}
Look for randomness that the seed does not reach (np.random.default_rng() or \
torch.Generator() without a seed, time, os.urandom), state carried between calls (global \
counters, caches, a model that keeps training) or nondeterministic kernels."""

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
) -> None:
    """Call ``fn()`` ``runs`` times, each under :func:`seeded` with the same ``seed`` and
    deterministic algorithms, and require results (a tensor or a nested structure of
    tensors and numbers) equal to the first run's within ``atol``/``rtol`` (bit-exact by
    default). The failure names the first differing output path and the difference.
    """
    if runs < 2:
        raise ValueError(f"runs must be at least 2, got {runs}")
    name = f"{callable_name(fn)}()"
    first = _run(fn, name, 1, runs, seed)
    for run in range(2, runs + 1):
        result = _run(fn, name, run, runs, seed)
        found = first_mismatch(result, first, rtol=rtol, atol=atol)
        if found is not None:
            raise CheckFailed(
                _NOT_REPRODUCIBLE.format(
                    name=name, run=run, runs=runs, path=found.path, seed=seed, details=indent(found.render())
                )
            )


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
