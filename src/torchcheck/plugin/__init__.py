"""torchcheck's pytest plugin, for the repositories that turn it on.

Loaded through the ``pytest11`` entry point named ``torchcheck``, but installing torchcheck
changes no test suite. This module registers only options and ini keys
(``torchcheck.plugin.options``), every one named ``torchcheck...`` so that no other plugin
can register it too. A run that turns the plugin on (``torchcheck = true`` in the ini file,
or ``--torchcheck`` or any other torchcheck option on the command line; see
``options.enabled``) gets the markers, fixtures and hooks of ``torchcheck.plugin.hooks``:
device parametrization, per-test seeds, the torch state guard, distributed tests, the
report header and the replay section. Only such a run has its xdist workers pinned to
GPUs and pytest-randomly's reseed passed on to torch.

One hook acts in every run: the short-summary line of a failed torchcheck check shows its
message. Only torchcheck's checks raise ``CheckFailed``, so a suite that never calls them
sees no difference, and one that calls them without the plugin reads the same summary.

The package, as pytest-xdist keeps its machinery beside its ``plugin`` module. Public:
this module's ``TorchStateLeakWarning`` and ``reseed_torch``; the modules inside are the
plugin's own.

- ``options``: options, ini keys and their help, and the opt-in switch.
- ``hooks``: markers, fixtures and hooks of a run that turned the plugin on, in
  lifecycle order.
- ``session``: what a session resolved once (settings, the devices found).
- ``support``: pure decisions over settings, devices, seeds and GPU pinning, and the
  names the modules share.
- ``distributed_plan``: pure decisions of ``@pytest.mark.distributed``.
- ``distributed``: starting a distributed test's ranks, merging their reports, running
  in place under torchrun.
- ``golden``: the ``golden_curve`` fixture's settings, paths and summary.
- ``model_items``: the zero-code model tests of ``[tool.torchcheck.models]``.

Imports go one way, plugin -> checks -> torch: what the plugin shares with the checks
(the rank runner, the ``[tool.torchcheck.models]`` table, the localize level) lives in
``torchcheck.checks``, and no module there imports this package. Read top
to bottom in pytest's lifecycle order: options -> early worker setup -> configure ->
reports -> unconfigure, then the pytest-randomly seeder. Loading this module imports
neither torch nor libcst, nor the hooks module unless the run turns the plugin on.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Generator

import pytest

from torchcheck.plugin.options import add_options, enabled
from torchcheck.plugin.support import (
    DEVICES_NAMES,
    SettingError,
    TorchStateLeakWarning,
    cuda_allowed,
    parse_visible_devices,
    requested_devices,
    worker_index,
    worker_visible_devices,
)

__all__ = ["TorchStateLeakWarning", "reseed_torch"]

PINNING_TOO_LATE = (
    "torchcheck: CUDA was initialised before xdist worker {worker} could be pinned to "
    "GPU(s) {mask}; workers may share a GPU. Avoid touching CUDA in plugins loaded "
    "before torchcheck."
)

_HOOKS_PLUGIN_NAME = "torchcheck-hooks"
# Whether each session now configured turned the plugin on, innermost last: a pytester
# run inside a test is a session of its own, and the seeder must follow the innermost.
_SESSIONS_ENABLED: list[bool] = []


# --- options ----------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


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
    if worker is None or not enabled(early_config, early_config.known_args_namespace):
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
    turned_on = enabled(config, config.option)
    _SESSIONS_ENABLED.append(turned_on)
    if not turned_on:
        return
    from torchcheck.plugin import hooks

    if not config.pluginmanager.is_registered(hooks):
        config.pluginmanager.register(hooks, _HOOKS_PLUGIN_NAME)


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
