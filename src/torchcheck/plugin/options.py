"""The plugin's options and ini keys, and the switch that turns the plugin on.

Every pytest session loads this (through ``torchcheck.plugin``), so it imports only
pytest and the pure settings module. Help strings are defined once and reused for the
command-line option and its ini key.
"""

from __future__ import annotations

import pytest

from torchcheck.checks._localize_setting import LOCALIZE_LEVELS
from torchcheck.plugin.support import (
    DEVICES_NAMES,
    ENABLE_CLI,
    ENABLE_INI,
    LOCALIZE_NAMES,
    SEED_NAMES,
    STRICT_STATE_NAMES,
    plugin_enabled,
)

__all__ = ["add_options", "enabled"]

# --- user-facing strings, defined once --------------------------------------------

GROUP_DESCRIPTION = "torchcheck (PyTorch correctness checks)"
ENABLE_HELP = (
    "Turn the torchcheck plugin on for this run: the torch_device, seeded, rank and "
    "world_size fixtures, its markers, the torch state guard, its header line. Any other "
    f"--torchcheck-* option turns it on too. For every run: ini {ENABLE_INI} = true."
)
ENABLE_INI_HELP = (
    "Turn the torchcheck plugin on for every run of this repository (default: off, so "
    f"that installing torchcheck changes no suite). For one run: {ENABLE_CLI}."
)
DEVICE_HELP = (
    "Comma-separated devices for the torch_device fixture, e.g. 'cpu,cuda' "
    "(default: every available device). Asking for a device this machine lacks is a "
    f"usage error. Also: env {DEVICES_NAMES.env}, ini {DEVICES_NAMES.ini}."
)
SEED_HELP = (
    "Base seed for the seeded fixture (default 0); each test's seed is derived from it "
    f"and the test's node id. Also: env {SEED_NAMES.env}, ini {SEED_NAMES.ini}."
)
STRICT_STATE_HELP = (
    "Make leaked torch global state (default dtype and device, grad mode, determinism, "
    "cuDNN and TF32 flags, anomaly detection, autocast, flush-denormal, threads) an error "
    f"instead of a warning. Also: env {STRICT_STATE_NAMES.env}=1, "
    f"ini {STRICT_STATE_NAMES.ini} = true."
)
UPDATE_GOLDEN_HELP = (
    "Write the golden curves of this machine's key instead of comparing them (golden_curve "
    "fixture); =missing writes only those that do not exist yet. Also: env "
    "TORCHCHECK_UPDATE_GOLDEN=all|missing."
)
GOLDEN_MISSING_HELP = (
    "What a test does when no golden curve exists for this machine's key: skip (default), "
    "fail (the default when the run asks for the test's device explicitly), or compare with "
    "the nearest key's approximately. Also: env TORCHCHECK_GOLDEN_MISSING, ini "
    "torchcheck_golden_missing."
)
GOLDEN_DIR_HELP = (
    "Directory, relative to the rootdir, that holds the golden curves (default: golden/ "
    "beside each test file)."
)
GOLDEN_REQUIRED_HELP = (
    "Golden keys (patterns such as cuda-sm90-*) whose missing golden fails the test whatever "
    "torchcheck_golden_missing says."
)
MODELS_HELP = (
    "Generate the zero-code model tests of [tool.torchcheck.models] in pyproject.toml even "
    "when pytest is given paths (default: when it runs without path arguments, or is given "
    "pyproject.toml); --no-torchcheck-models turns them off. Also: env TORCHCHECK_MODELS, "
    "ini torchcheck_models = true|false."
)
MODELS_EXPLAIN_HELP = (
    "Print, per model of [tool.torchcheck.models], the items generated and why each other "
    "check was not. Also: env TORCHCHECK_MODELS_EXPLAIN=1, ini torchcheck_models_explain."
)
LOCALIZE_HELP = (
    "How far a failed equivalence check (assert_reproducible, ...) localises the difference "
    "in its \"Where it starts\" section: off, module, or op (default: the first differing "
    f"operation and its source line). Also: env {LOCALIZE_NAMES.env}, ini {LOCALIZE_NAMES.ini}."
)


# --- options ----------------------------------------------------------------------


def add_options(parser: pytest.Parser) -> None:
    """Register every option and ini key; each is named ``torchcheck...`` so that no other
    plugin can register it too."""
    group = parser.getgroup("torchcheck", GROUP_DESCRIPTION)
    group.addoption(ENABLE_CLI, dest="torchcheck", action="store_true", help=ENABLE_HELP)
    group.addoption(DEVICES_NAMES.cli, dest="torchcheck_device", metavar="LIST", help=DEVICE_HELP)
    group.addoption(SEED_NAMES.cli, dest="torchcheck_seed", metavar="N", help=SEED_HELP)
    group.addoption(
        STRICT_STATE_NAMES.cli,
        dest="torchcheck_strict_state",
        action="store_true",
        default=None,
        help=STRICT_STATE_HELP,
    )
    group.addoption(
        "--torchcheck-update-golden",
        "--torchcheck-update-golden=all",  # an exact option string, so that a path after the flag stays a path
        dest="torchcheck_update_golden",
        action="store_const",
        const="all",
        default=None,
        help=UPDATE_GOLDEN_HELP,
    )
    group.addoption(
        "--torchcheck-update-golden=missing",
        dest="torchcheck_update_golden",
        action="store_const",
        const="missing",
        default=None,
        help="Write only the golden curves that do not exist yet (see --torchcheck-update-golden).",
    )
    group.addoption(
        "--torchcheck-golden-missing",
        dest="torchcheck_golden_missing",
        metavar="skip|fail|nearest",
        help=GOLDEN_MISSING_HELP,
    )
    group.addoption(
        "--torchcheck-models", dest="torchcheck_models", action="store_const", const=True, default=None, help=MODELS_HELP
    )
    group.addoption(
        "--no-torchcheck-models",
        dest="torchcheck_models",
        action="store_const",
        const=False,
        default=None,
        help="Generate no zero-code model tests (see --torchcheck-models).",
    )
    group.addoption(
        "--torchcheck-models-explain", dest="torchcheck_models_explain", action="store_true", help=MODELS_EXPLAIN_HELP
    )
    group.addoption(
        LOCALIZE_NAMES.cli, dest="torchcheck_localize", choices=LOCALIZE_LEVELS, default=None, help=LOCALIZE_HELP
    )
    parser.addini(ENABLE_INI, ENABLE_INI_HELP, type="bool", default=False)
    parser.addini(LOCALIZE_NAMES.ini, LOCALIZE_HELP, default="")
    parser.addini("torchcheck_models", MODELS_HELP, type="bool", default=None)
    parser.addini("torchcheck_models_explain", MODELS_EXPLAIN_HELP, type="bool", default=None)
    parser.addini("torchcheck_golden_missing", GOLDEN_MISSING_HELP, default="")
    parser.addini("torchcheck_golden_dir", GOLDEN_DIR_HELP, default="")
    parser.addini("torchcheck_golden_required", GOLDEN_REQUIRED_HELP, type="linelist", default=[])
    parser.addini(DEVICES_NAMES.ini, DEVICE_HELP, default="")
    parser.addini(SEED_NAMES.ini, SEED_HELP, default="")
    parser.addini(STRICT_STATE_NAMES.ini, STRICT_STATE_HELP, type="bool", default=None)


def enabled(config: pytest.Config, options: object) -> bool:
    """Whether the run turned the plugin on; ``options`` is the parsed command line
    (``known_args_namespace`` before ``config.option`` is filled in)."""
    return plugin_enabled(
        bool(getattr(options, "torchcheck", False)),
        [
            getattr(options, "torchcheck_device", None),
            getattr(options, "torchcheck_seed", None),
            getattr(options, "torchcheck_strict_state", None),
            getattr(options, "torchcheck_update_golden", None),
            getattr(options, "torchcheck_golden_missing", None),
            getattr(options, "torchcheck_localize", None),
            getattr(options, "torchcheck_models", None) or None,  # --no-torchcheck-models turns nothing on
            getattr(options, "torchcheck_models_explain", None) or None,
        ],
        bool(config.getini(ENABLE_INI)),
    )
