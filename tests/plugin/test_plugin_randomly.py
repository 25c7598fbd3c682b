"""The pytest-randomly seeder entry point reseeds torch: only when torch is loaded, and
only in a run that turned the plugin on (randomly calls every installed seeder)."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points

import pytest

from torchcheck.plugin import reseed_torch

RESEED_PROBE = """
import torch

from torchcheck.plugin import reseed_torch

def test_probe():
    with torch.random.fork_rng():  # leave the outer session's generator as it was
        torch.manual_seed(1234)
        expected = torch.rand(3)
        torch.manual_seed(5)
        reseed_torch(1234)  # what pytest-randomly does before each test
        print("RESEEDED" if torch.equal(torch.rand(3), expected) else "UNTOUCHED")
"""


def test_reseed_torch_reseeds_the_torch_generator_in_a_run_that_turned_the_plugin_on(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(RESEED_PROBE)
    result = pytester.runpytest("-s", "-p", "no:randomly")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*RESEEDED*"])


def test_reseed_torch_leaves_torch_alone_in_a_run_that_did_not_turn_the_plugin_on(
    pytester: pytest.Pytester,
) -> None:
    (pytester.path / "tox.ini").unlink()
    pytester.makepyfile(RESEED_PROBE)
    result = pytester.runpytest("-s", "-p", "no:randomly")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*UNTOUCHED*"])


def test_reseed_torch_never_imports_torch() -> None:
    code = (
        "import sys\n"
        "from torchcheck.plugin import reseed_torch\n"
        "reseed_torch(3)\n"
        "assert 'torch' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_reseed_torch_is_registered_as_a_pytest_randomly_seeder() -> None:
    seeders = entry_points(group="pytest_randomly.random_seeder")
    [seeder] = [ep for ep in seeders if ep.name == "torchcheck"]
    assert seeder.load() is reseed_torch


def test_the_plugin_is_registered_under_the_name_torchcheck() -> None:
    [plugin] = [ep for ep in entry_points(group="pytest11") if ep.name == "torchcheck"]
    assert plugin.value == "torchcheck.plugin"
