"""torchcheck: catch PyTorch correctness mistakes before they cost a training run.

Importing ``torchcheck`` imports neither torch nor libcst: the public names below are
resolved on first use, so a pre-commit hook or a non-torch test suite pays nothing.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

#: How to install what the runtime checks and the pytest plugin need (torch, pytest).
INSTALL_HINT = 'pip install "torchcheck-lint[runtime]"'
TORCH_MISSING_MESSAGE = (
    "torchcheck.{name} needs PyTorch, which is not installed in this environment. "
    "Install torchcheck with its runtime extra: {hint}"
)

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
    "assert_accumulation_equivalent": "torchcheck.checks.accumulation",
    "assert_optimizer_covers": "torchcheck.checks.optimizers",
    "meta_shapes": "torchcheck.checks.meta",
    "assert_meta_shapes": "torchcheck.checks.meta",
    "assert_meta_load": "torchcheck.checks.meta",
    "assert_devices_agree": "torchcheck.checks.devices",
    "assert_no_graph_leak": "torchcheck.checks.leaks",
    "assert_data_parallel_equivalent": "torchcheck.checks.distributed",
    "assert_sharded_checkpoint_roundtrip": "torchcheck.checks.sharded_checkpoint",
    "NotApplicable": "torchcheck.checks.errors",
    "assert_compile_parity": "torchcheck.checks.compile_parity",
    "assert_compiles_cleanly": "torchcheck.checks.compile_parity",
    "run_training": "torchcheck.checks.golden",
    "TrainingCurve": "torchcheck.checks.golden",
    "golden_key": "torchcheck.checks.golden",
    "GoldenKey": "torchcheck.checks.golden",
    "Exact": "torchcheck.checks.golden",
    "Approx": "torchcheck.checks.golden",
    "assert_golden_curve": "torchcheck.checks.golden",
    "assert_inference_contract": "torchcheck.checks.inference",
    "check_model": "torchcheck.checks.battery",
    "ModelReport": "torchcheck.checks.battery",
    "localize_divergence": "torchcheck.checks.localize",
    "DivergenceReport": "torchcheck.checks.localize",
}

__all__ = ["__version__", *_LAZY_EXPORTS]


def __getattr__(name: str) -> Any:
    module_name = _LAZY_EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'torchcheck' has no attribute {name!r}")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name != "torch":
            raise
        message = TORCH_MISSING_MESSAGE.format(name=name, hint=INSTALL_HINT)
        # Still a ModuleNotFoundError naming torch, so ``except ImportError`` keeps working.
        raise ModuleNotFoundError(message, name="torch") from None
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
