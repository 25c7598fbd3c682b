"""Linting a buffer as the file it will be saved as, without a client."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from torchcheck.server.linting import fix_all, lint_document

FORWARD_CALLED = "import torch\n\nmodel = torch.nn.Linear(2, 2)\nout = model.forward(torch.ones(2))\n"


def test_a_broken_config_is_one_finding_that_names_the_problem_instead_of_an_error(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[tool.torchcheck]\nselect = ["TCK999"]\n', encoding="utf-8")
    [problem] = lint_document(FORWARD_CALLED, tmp_path / "train.py").diagnostics
    assert problem.code == "TCK000"
    assert "settings could not be read" in problem.message and "TCK999" in problem.message


def test_a_buffer_larger_than_max_file_size_is_reported_not_linted(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text("[tool.torchcheck]\nmax-file-size = 10\n", encoding="utf-8")
    [problem] = lint_document(FORWARD_CALLED, tmp_path / "train.py").diagnostics
    assert problem.code == "TCK000" and "max-file-size" in problem.message


def test_the_target_version_decides_which_rules_apply(tmp_path: Path):
    deprecated_amp = "import torch\n\nwith torch.cuda.amp.autocast():\n    pass\n"
    assert [d.code for d in lint_document(deprecated_amp, tmp_path / "train.py").diagnostics] == ["TCK301"]
    (tmp_path / "pyproject.toml").write_text('[tool.torchcheck]\ntarget-version = "1.9"\n', encoding="utf-8")
    assert lint_document(deprecated_amp, tmp_path / "train.py").diagnostics == ()


def test_fix_all_keeps_windows_line_endings(tmp_path: Path):
    fixed = fix_all(FORWARD_CALLED.replace("\n", "\r\n"), tmp_path / "train.py")
    assert fixed == "import torch\r\n\r\nmodel = torch.nn.Linear(2, 2)\r\nout = model(torch.ones(2))\r\n"


def test_fix_all_is_none_when_nothing_changes(tmp_path: Path):
    assert fix_all("import torch\n", tmp_path / "train.py") is None


CACHED_LINT = """
import sys
from pathlib import Path
from torchcheck.server.linting import lint_document
result = lint_document(Path("train.py").read_text(encoding="utf-8"), Path("train.py").absolute(), use_cache={use_cache})
print([d.code for d in result.diagnostics], "libcst" in sys.modules)
"""


@pytest.mark.parametrize(("use_cache", "parsed"), [(True, False), (False, True)])
def test_a_file_the_command_line_has_linted_opens_from_its_cache_without_parsing(tmp_path: Path, use_cache: bool, parsed: bool):
    (tmp_path / "pyproject.toml").write_text("[tool.torchcheck]\n", encoding="utf-8")
    (tmp_path / "train.py").write_text(FORWARD_CALLED, encoding="utf-8")
    lint = subprocess.run([sys.executable, "-m", "torchcheck", "lint", "--quiet", "train.py"], cwd=tmp_path, capture_output=True, check=False)
    assert lint.returncode == 1, lint.stderr
    opened = subprocess.run([sys.executable, "-c", CACHED_LINT.format(use_cache=use_cache)], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert opened.stdout.strip() == f"['TCK105'] {parsed}", opened.stderr
