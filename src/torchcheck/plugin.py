"""torchcheck's pytest plugin, for the repositories that turn it on.

Loaded through the ``pytest11`` entry point named ``torchcheck``, but installing torchcheck
changes no test suite. This module registers only options and ini keys, every one named
``torchcheck...`` so that no other plugin can register it too. A run that turns the plugin
on (``torchcheck = true`` in the ini file, or ``--torchcheck`` or any other torchcheck option
on the command line; see ``plugin_enabled``) gets the markers, fixtures and hooks of
``torchcheck._plugin_hooks``: device parametrization, per-test seeds, the torch state guard,
distributed tests, the report header and the replay section. Only such a run has its xdist
workers pinned to GPUs and pytest-randomly's reseed passed on to torch.

One hook acts in every run: the short-summary line of a failed torchcheck check shows its
message. Only torchcheck's checks raise ``CheckFailed``, so a suite that never calls them
sees no difference, and one that calls them without the plugin reads the same summary.

Read top to bottom in pytest's lifecycle order: options -> early worker setup -> configure
-> reports -> unconfigure, then the pytest-randomly seeder. Loading this module imports
neither torch nor libcst, nor the hooks module unless the run turns the plugin on.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Generator

import pytest

from torchcheck._plugin_support import (
    DEVICES_NAMES,
    ENABLE_CLI,
    ENABLE_INI,
    LOCALIZE_LEVELS,
    LOCALIZE_NAMES,
    SEED_NAMES,
    STRICT_STATE_NAMES,
    SettingError,
    cuda_allowed,
    parse_visible_devices,
    plugin_enabled,
    requested_devices,
    worker_index,
    worker_visible_devices,
)

__all__ = ["TorchStateLeakWarning", "reseed_torch"]

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
REPLAY_SECTION_TITLE = "torchcheck replay"
PINNING_TOO_LATE = (
    "torchcheck: CUDA was initialised before xdist worker {worker} could be pinned to "
    "GPU(s) {mask}; workers may share a GPU. Avoid touching CUDA in plugins loaded "
    "before torchcheck."
)

_HOOKS_PLUGIN_NAME = "torchcheck-hooks"
# Whether each session now configured turned the plugin on, innermost last: a pytester
# run inside a test is a session of its own, and the seeder must follow the innermost.
_SESSIONS_ENABLED: list[bool] = []


class TorchStateLeakWarning(UserWarning):
    """A test changed torch global state and did not restore it."""


# --- options ----------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
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


def _enabled(config: pytest.Config, options: object) -> bool:
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


# --- early setup: pin xdist workers to their GPUs before anything touches CUDA -----


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """On an xdist worker of a run that turned the plugin on, narrow
    ``CUDA_VISIBLE_DEVICES`` to this worker's slice.

    This runs before any conftest is imported, so CUDA cannot have been initialised by
    the user's code yet (the mask is read once, when CUDA initialises). The caller's own
    mask is respected: the worker gets a slice of it, never of the physical GPUs.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None or not _enabled(early_config, early_config.known_args_namespace):
        return
    index = worker_index(worker)
    count = _int_or_zero(os.environ.get("PYTEST_XDIST_WORKER_COUNT"))
    if index is None or count <= 1 or not _cuda_allowed_early(early_config):
        return
    mask = os.environ.get("CUDA_VISIBLE_DEVICES")
    visible = parse_visible_devices(mask) if mask is not None else _physical_gpu_ids()
    pinned = worker_visible_devices(index, count, visible)
    if pinned is None:
        return
    os.environ["CUDA_VISIBLE_DEVICES"] = ",".join(pinned)
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_initialized():
        warnings.warn(PINNING_TOO_LATE.format(worker=worker, mask=",".join(pinned)))


def _cuda_allowed_early(early_config: pytest.Config) -> bool:
    """Whether the run may use CUDA; invalid settings are reported later, in configure."""
    try:
        devices, _ = requested_devices(
            early_config.known_args_namespace.torchcheck_device,
            os.environ,
            early_config.getini(DEVICES_NAMES.ini),
        )
    except SettingError:
        return False
    return cuda_allowed(devices)


def _int_or_zero(text: str | None) -> int:
    return int(text) if text is not None and text.isdigit() else 0


def _physical_gpu_ids() -> tuple[str, ...]:
    """Indices of the NVIDIA GPUs, counted through NVML without initialising CUDA.

    ``torch.cuda.device_count()`` is not safe here: unless NVML-based checks are enabled
    it initialises the CUDA driver, which then ignores any later mask. Loading the NVML
    library fails in microseconds on a machine without an NVIDIA driver.
    """
    import ctypes

    for name in ("libnvidia-ml.so.1", "nvml.dll"):
        try:
            nvml = ctypes.CDLL(name)
        except OSError:
            continue
        count = ctypes.c_uint(0)
        try:
            if nvml.nvmlInit_v2() != 0:
                return ()
            ok = nvml.nvmlDeviceGetCount_v2(ctypes.byref(count)) == 0
            nvml.nvmlShutdown()
        except AttributeError:
            return ()
        return tuple(str(i) for i in range(count.value)) if ok else ()
    return ()


# --- configure ----------------------------------------------------------------------


def pytest_configure(config: pytest.Config) -> None:
    """Register the markers, fixtures and hooks, if this run turned the plugin on."""
    enabled = _enabled(config, config.option)
    _SESSIONS_ENABLED.append(enabled)
    if not enabled:
        return
    from torchcheck import _plugin_hooks

    if not config.pluginmanager.is_registered(_plugin_hooks):
        config.pluginmanager.register(_plugin_hooks, _HOOKS_PLUGIN_NAME)


# --- reports ------------------------------------------------------------------------


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Put a failed check's message, not its exception's dotted name, in the short summary.

    pytest's summary line is ``FAILED nodeid - <type>: <message>``, cut to the terminal
    width, which left ``torchcheck.checks.errors.CheckFailed: asser...``; the message names
    the check and the problem, and its first line is what the summary shows.
    """
    report: pytest.TestReport = yield
    if report.failed and call.excinfo is not None:
        _summarise_check_failure(report, call.excinfo.value)
    return report


def _summarise_check_failure(report: pytest.TestReport, error: BaseException) -> None:
    errors = sys.modules.get("torchcheck.checks.errors")  # never imported just to ask
    if errors is None or not isinstance(error, errors.CheckFailed):
        return
    crash = getattr(report.longrepr, "reprcrash", None)
    lines = str(error).strip().splitlines()
    if crash is not None and lines:
        crash.message = lines[0]


def pytest_unconfigure(config: pytest.Config) -> None:
    if _SESSIONS_ENABLED:
        _SESSIONS_ENABLED.pop()


# --- pytest-randomly integration ----------------------------------------------------


def reseed_torch(seed: int) -> None:
    """``pytest_randomly.random_seeder`` entry point: reseed torch with randomly's
    per-test seed, so ``--randomly-seed=last`` replays torch randomness too.

    Only in a session that turned the plugin on (randomly calls every installed seeder,
    and a suite that did not ask for torchcheck must keep its torch random stream), and
    only when torch is already imported: seeding never imports it.
    """
    torch = sys.modules.get("torch")
    if torch is not None and _SESSIONS_ENABLED and _SESSIONS_ENABLED[-1]:
        torch.manual_seed(seed)
