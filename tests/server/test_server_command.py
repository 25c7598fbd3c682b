"""`torchcheck server` from the command line: cheap to list, clear when pygls is missing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from torchcheck.server import PYGLS_MISSING

# Runs the CLI with pygls made unimportable, as in an install without the server extra.
WITHOUT_PYGLS = """
import sys
class NoPygls:
    def find_spec(self, name, path=None, target=None):
        if name == "pygls" or name.startswith("pygls."):
            raise ImportError("No module named 'pygls'")
sys.meta_path.insert(0, NoPygls())
from torchcheck.cli import main
code = main(["server"])
print("exit", code, "libcst" in sys.modules)
"""

HELP_IMPORTS = """
import sys
from contextlib import redirect_stdout
from io import StringIO
from torchcheck.cli import main
with redirect_stdout(StringIO()) as text:
    try:
        main(["--help"])
    except SystemExit:
        pass
loaded = [name for name in ("libcst", "pygls", "lsprotocol", "torchcheck.server") if name in sys.modules]
print("server" in text.getvalue(), loaded)
"""


def _python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, check=False)


def test_server_without_pygls_exits_two_with_the_install_command(tmp_path: Path):
    result = _python(WITHOUT_PYGLS, tmp_path)
    assert result.stdout.strip() == "exit 2 False"
    assert result.stderr == PYGLS_MISSING
    assert 'pip install "torchcheck-lint[server]"' in result.stderr


def test_help_lists_the_server_without_importing_it_libcst_or_pygls(tmp_path: Path):
    result = _python(HELP_IMPORTS, tmp_path)
    assert result.stdout.strip() == "True []"
