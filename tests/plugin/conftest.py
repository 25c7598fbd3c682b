"""Shared setup for the plugin's pytester tests."""

from __future__ import annotations

import pytest

# pytester's in-process runs drop the modules first imported during the run, and torch
# (including the torch._dynamo that torch.manual_seed imports lazily) cannot be imported
# twice in one process. So import everything the plugin loads lazily here, once, and
# run one seeded block to pull in torch's lazy imports, so they outlive every inner run.
import torch

import torchcheck.checks.devices  # noqa: F401
import torchcheck.checks.state  # noqa: F401
from torchcheck.checks.seeding import seeded

with seeded(0):
    pass

# Variables that would leak the outer run's situation into the inner pytest runs: the
# outer run may itself be an xdist worker, or be configured through the environment.
_OUTER_ENVIRONMENT = (
    "PYTEST_XDIST_WORKER",
    "PYTEST_XDIST_WORKER_COUNT",
    "PYTEST_XDIST_TESTRUNUID",
    "PYTEST_ADDOPTS",
    "TORCHCHECK_DEVICES",
    "TORCHCHECK_SEED",
    "TORCHCHECK_STRICT_STATE",
    "CUDA_VISIBLE_DEVICES",
)


OPTED_IN_INI = "[pytest]\ntorchcheck = true\n"
"""The configuration of a repository that uses the plugin; tests that write their own
ini file start from it."""


@pytest.fixture
def pytester(pytester: pytest.Pytester) -> pytest.Pytester:
    """pytest's ``pytester``, its project turned to one that uses the plugin (installing
    torchcheck alone turns nothing on); tests of a project that does not use it delete
    the file."""
    pytester.makeini(OPTED_IN_INI)
    return pytester


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _OUTER_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def cpu_only_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the plugin believe this machine has no accelerator, so tests of what happens
    without one hold on a GPU machine too (in-process pytester runs only)."""
    monkeypatch.setattr(torchcheck.checks.devices, "available_devices", lambda: [torch.device("cpu")])
