"""Seeding every random generator, and a context manager that undoes it."""

from __future__ import annotations

import contextlib
import os
import random
from collections.abc import Iterator

import torch

from torchcheck.checks.state import preserved_state

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = ["CUBLAS_WORKSPACE_CONFIG", "seed_everything", "seeded"]

#: Value cuBLAS needs for deterministic results (see the CUDA "reproducibility" notes);
#: set by :func:`seeded` only when the user has not chosen one.
CUBLAS_WORKSPACE_CONFIG = ":4096:8"
_CUBLAS_ENV = "CUBLAS_WORKSPACE_CONFIG"


def seed_everything(seed: int) -> None:
    """Seed python ``random``, numpy's global generator (if numpy is installed), torch
    on CPU and every CUDA device (lazily, so CUDA is not initialised by this call)."""
    random.seed(seed)
    try:
        import numpy as np
    except ImportError:  # numpy is optional
        pass
    else:
        np.random.seed(seed % 2**32)  # numpy only accepts 32-bit seeds
    torch.manual_seed(seed)  # also seeds CUDA and MPS generators
    torch.cuda.manual_seed_all(seed)


@contextlib.contextmanager
def seeded(seed: int, deterministic: bool = True) -> Iterator[int]:
    """Run a block with every RNG seeded to ``seed`` and, by default, deterministic
    algorithms on; yields the seed.

    On exit (also on error) the RNG states, the global torch settings, the print options
    and the ``CUBLAS_WORKSPACE_CONFIG`` environment variable are exactly as before, so
    nesting and interleaving with other code is safe.
    """
    with preserved_state(), _cublas_workspace_set(deterministic):
        seed_everything(seed)
        if deterministic:
            torch.use_deterministic_algorithms(True)
            torch.backends.cudnn.deterministic = True
            torch.backends.cudnn.benchmark = False
        yield seed


@contextlib.contextmanager
def _cublas_workspace_set(deterministic: bool) -> Iterator[None]:
    """Set ``CUBLAS_WORKSPACE_CONFIG`` for a deterministic block unless the user chose
    one; put the environment back afterwards."""
    before = os.environ.get(_CUBLAS_ENV)
    if deterministic and before is None:
        os.environ[_CUBLAS_ENV] = CUBLAS_WORKSPACE_CONFIG
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(_CUBLAS_ENV, None)
        else:
            os.environ[_CUBLAS_ENV] = before
