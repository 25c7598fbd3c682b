"""Without torch installed, the runtime API says what to install instead of a bare
``No module named 'torch'``. Each test runs a fresh interpreter whose import system
cannot find torch, the way an environment without it behaves."""

from __future__ import annotations

import subprocess
import sys

import torchcheck

HIDE_TORCH = """
import sys

class TorchIsNotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, TorchIsNotInstalled())
import torchcheck as tc
"""


def _run_without_torch(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", HIDE_TORCH + code], capture_output=True, text=True, timeout=120
    )


def test_seed_everything_without_torch_says_to_install_the_runtime_extra() -> None:
    result = _run_without_torch("tc.seed_everything(0)")
    assert result.returncode == 1
    last_line = result.stderr.strip().splitlines()[-1]
    assert last_line.startswith("ModuleNotFoundError: torchcheck.seed_everything needs PyTorch")
    assert last_line.endswith(torchcheck.INSTALL_HINT)
    # one clean error, not the import failure chained to it
    assert "During handling of the above exception" not in result.stderr


def test_the_missing_torch_error_is_still_an_import_error_naming_torch() -> None:
    code = (
        "try:\n"
        "    tc.assert_reproducible\n"
        "except ImportError as error:\n"
        "    print(type(error).__name__, error.name)\n"
    )
    result = _run_without_torch(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["ModuleNotFoundError", "torch"]


def test_importing_torchcheck_itself_needs_no_torch() -> None:
    result = _run_without_torch("print(tc.__version__)")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == torchcheck.__version__
