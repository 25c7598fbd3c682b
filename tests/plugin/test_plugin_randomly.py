"""The pytest-randomly seeder entry point reseeds torch, and only when torch is loaded."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points

import torch

from torchcheck.plugin import reseed_torch


def test_reseed_torch_reseeds_the_torch_generator() -> None:
    with torch.random.fork_rng():
        reseed_torch(1234)
        first = torch.rand(3)
        torch.rand(5)
        reseed_torch(1234)
        assert torch.equal(torch.rand(3), first)


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
