"""pytest plugin of the GPU job (``.ci/gpu`` loads it with ``-p gpu_ci_plugin``).

- Every test report carries a ``markers`` property, so ``.ci/junit_audit.py`` counts the
  tests per marker from the JUnit XML.
- ``--gpu-ci-pretend-gpus=N`` collects as if the machine had N CUDA devices, so
  ``.ci/gpu --dry-run`` lists on a CPU machine what a GPU machine would select. It only
  collects: a run that executes tests is refused.
- ``--gpu-ci-check-selection`` fails the run when a test is skipped for want of a GPU but
  lacks the ``cuda`` marker: the job selects by that marker, so such a test would never
  run anywhere.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

# Markers that say nothing about what a test exercises.
PLUMBING_MARKERS = frozenset({"parametrize", "usefixtures", "filterwarnings", "skip", "skipif", "xfail"})
GPU_REASON = re.compile(r"\b(cuda|gpus?|nccl)\b", re.IGNORECASE)
PRETEND_ONLY_COLLECTS = "--gpu-ci-pretend-gpus only collects (there is no GPU to run on): add --collect-only"
UNSELECTED_HEADER = (
    "skipped for want of a GPU, but without the cuda marker that .ci/gpu selects by, so they run "
    "nowhere; replace the skipif with @pytest.mark.cuda (the plugin skips it with a reason where "
    "CUDA is absent):"
)

_RESTORE_KEY: pytest.StashKey[list[tuple[Any, str, Any]]] = pytest.StashKey()
_UNSELECTED_KEY: pytest.StashKey[list[str]] = pytest.StashKey()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("gpu-ci", "torchcheck's GPU job (.ci/gpu)")
    group.addoption(
        "--gpu-ci-pretend-gpus", type=int, default=0, metavar="N",
        help="collect as if this machine had N CUDA devices (with --collect-only)",
    )
    group.addoption(
        "--gpu-ci-check-selection", action="store_true",
        help="fail when a test skipped for want of a GPU lacks the cuda marker",
    )


@pytest.hookimpl(tryfirst=True)  # before torchcheck's hooks probe the devices
def pytest_configure(config: pytest.Config) -> None:
    config.stash[_RESTORE_KEY] = []
    config.stash[_UNSELECTED_KEY] = []
    count = config.getoption("gpu_ci_pretend_gpus")
    if not count:
        return
    if not config.getoption("collectonly"):
        raise pytest.UsageError(PRETEND_ONLY_COLLECTS)
    _pretend_gpus(config, count)


def _pretend_gpus(config: pytest.Config, count: int) -> None:
    """The way tests/plugin fakes a GPU machine: torchcheck learns what devices exist from
    ``available_devices`` alone."""
    import torch

    from torchcheck.checks import devices

    found = [torch.device("cpu"), *(torch.device("cuda", index) for index in range(count))]
    config.stash[_RESTORE_KEY].append((devices, "available_devices", devices.available_devices))
    devices.available_devices = lambda: list(found)


def pytest_unconfigure(config: pytest.Config) -> None:
    restore = config.stash.get(_RESTORE_KEY, [])
    while restore:
        module, name, value = restore.pop()
        setattr(module, name, value)


def pytest_collection_finish(session: pytest.Session) -> None:
    check = session.config.getoption("gpu_ci_check_selection")
    unselected = session.config.stash[_UNSELECTED_KEY]
    for item in session.items:
        item.user_properties.append(("markers", ",".join(marker_names(item))))
        if check and item.get_closest_marker("cuda") is None:
            reason = gpu_skip_reason(item)
            if reason is not None:
                unselected.append(f"  {item.nodeid}: {reason}")


def marker_names(item: pytest.Item) -> list[str]:
    return sorted({marker.name for marker in item.iter_markers()} - PLUMBING_MARKERS)


def gpu_skip_reason(item: pytest.Item) -> str | None:
    """The reason the item is skipped at collection, if that reason is a missing GPU."""
    from _pytest.skipping import evaluate_skip_marks

    skipped = evaluate_skip_marks(item)
    if skipped is not None and GPU_REASON.search(skipped.reason):
        return skipped.reason
    return None


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    unselected = config.stash.get(_UNSELECTED_KEY, [])
    if unselected:
        terminalreporter.section("tests the GPU job never selects", red=True)
        terminalreporter.line(UNSELECTED_HEADER)
        for line in unselected:
            terminalreporter.line(line)


def pytest_sessionfinish(session: pytest.Session) -> None:
    if session.config.stash.get(_UNSELECTED_KEY, []):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
