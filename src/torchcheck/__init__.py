"""torchcheck: catch PyTorch correctness mistakes before they cost a training run.

Importing ``torchcheck`` imports neither torch nor libcst: the public names below are
resolved on first use, so a pre-commit hook or a non-torch test suite pays nothing.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> module that defines it
_LAZY_EXPORTS: dict[str, str] = {
    "CheckFailed": "torchcheck.checks.errors",
    "available_devices": "torchcheck.checks.devices",
    "seed_everything": "torchcheck.checks.seeding",
    "seeded": "torchcheck.checks.seeding",
    "assert_reproducible": "torchcheck.checks.reproducibility",
    "assert_gradcheck": "torchcheck.checks.gradients",
    "assert_gradients_flow": "torchcheck.checks.gradients",
    "assert_batch_independent": "torchcheck.checks.gradients",
    "assert_amp_step": "torchcheck.checks.amp",
    "assert_checkpoint_roundtrip": "torchcheck.checks.checkpoint",
    "assert_resume_equivalent": "torchcheck.checks.checkpoint",
    "meta_shapes": "torchcheck.checks.meta",
    "assert_meta_shapes": "torchcheck.checks.meta",
    "assert_meta_load": "torchcheck.checks.meta",
    "assert_devices_agree": "torchcheck.checks.devices",
    "assert_no_graph_leak": "torchcheck.checks.leaks",
}

__all__ = ["__version__", *_LAZY_EXPORTS]


def __getattr__(name: str) -> Any:
    module_name = _LAZY_EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'torchcheck' has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
