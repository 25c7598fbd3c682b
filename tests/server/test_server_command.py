"""`torchcheck server` from the command line: cheap to list, clear when pygls is missing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

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
loaded = [name for name in ("libcst", "pygls", "lsprotocol", "torchcheck.server.language_server", "torchcheck.server.workers") if name in sys.modules]
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


def test_the_server_help_describes_the_options_editors_pass():
    help_text = subprocess.run([sys.executable, "-m", "torchcheck", "server", "--help"], capture_output=True, text=True, check=False).stdout
    assert "Language Server Protocol" in help_text
    for option in ("--stdio", "--log-file PATH", "--log-level", "-v, --verbose"):
        assert option in help_text


def test_the_server_started_as_vs_code_starts_it_serves_and_logs_to_the_log_file(tmp_path: Path):
    pytest.importorskip("pygls")
    from lsprotocol import types

    from tests.server.editor import SERVER_COMMAND, Editor, drive, write

    log = tmp_path / "server.log"
    command = (*SERVER_COMMAND, "--stdio", "--log-file", str(log), "--verbose")

    async def scenario(editor: Editor) -> None:
        uri = write(tmp_path / "train.py", "import torch\nout = torch.nn.Linear(2, 2).forward(torch.ones(2))\n")
        editor.open(uri, (tmp_path / "train.py").read_text())
        assert [d.code for d in await editor.published(uri)] == ["TCK105"]

    drive(scenario, types.ClientCapabilities(), command)
    logged = log.read_text(encoding="utf-8")
    assert "DEBUG torchcheck.server.language_server: linted" in logged and "train.py" in logged


def test_a_log_file_that_cannot_be_written_is_a_usage_error(tmp_path: Path):
    pytest.importorskip("pygls")
    result = subprocess.run(
        [sys.executable, "-m", "torchcheck", "server", "--log-file", str(tmp_path / "missing" / "server.log")],
        capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2 and "cannot write the log file" in result.stderr
