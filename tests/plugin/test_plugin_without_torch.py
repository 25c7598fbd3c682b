"""Without torch installed, the plugin says what to install instead of crashing."""

from __future__ import annotations

import glob

import pytest

import torchcheck

HIDE_TORCH_CONFTEST = """
import sys

class TorchIsNotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, TorchIsNotInstalled())
"""

HINT = glob.escape(torchcheck.INSTALL_HINT)  # "[runtime]" is a pattern to fnmatch

SUITE = """
import pytest

def test_seeded(seeded):
    pass

def test_on_each_device(torch_device):
    pass

@pytest.mark.cuda
def test_needs_a_gpu():
    pass

def test_plain():
    pass
"""


def test_asking_for_a_gpu_without_torch_is_a_usage_error_naming_the_install_command(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(HIDE_TORCH_CONFTEST)
    pytester.makepyfile(SUITE)
    result = pytester.runpytest_subprocess("--torchcheck-device", "cuda")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"ERROR: torchcheck: --torchcheck-device=cuda needs PyTorch, *Install it with {HINT}*"]
    )
    result.stderr.no_fnmatch_line("*Traceback*")


def test_fixtures_without_torch_fail_with_the_install_command_and_other_tests_run(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(HIDE_TORCH_CONFTEST)
    pytester.makepyfile(SUITE)
    # pytest-torch, if installed, imports torch to parametrize torch_device: leave it out.
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:pytest_torch", "-rs")
    result.assert_outcomes(passed=1, skipped=1, errors=2)
    result.stdout.fnmatch_lines(
        [
            f"torchcheck: using the torch_device or seeded fixture needs PyTorch, *{HINT}*",
            f"torchcheck: the seeded fixture needs PyTorch, *{HINT}*",
            f"torchcheck: the torch_device fixture needs PyTorch, *{HINT}*",
            "SKIPPED * needs cuda, which is not available*",
        ]
    )
    result.stdout.no_fnmatch_line("*INTERNALERROR*")
    result.stdout.no_fnmatch_line("*During handling of the above exception*")
    result.stdout.no_fnmatch_line("*torchcheck replay*")  # nothing ran, nothing to replay
