"""Without a ``target-version`` setting, the oldest PyTorch a project declares it needs (its
``torch`` requirement) is the target version: advice it cannot follow yet stays quiet."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from torchcheck.config import discover, with_overrides
from torchcheck.lint.api import LintOptions, describe_settings, lint

TRAIN = """
import torch

scaler = torch.cuda.amp.GradScaler()
"""


def _project(root: Path, **files: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name.replace("_", ".", 1)).write_text(textwrap.dedent(text), encoding="utf-8")
    return root


@pytest.mark.parametrize(
    ("requirements", "version"),
    [
        ("numpy\ntorch>=1.8.0\ntorchvision>=0.9\n", (1, 8)),
        ("torch ~= 2.1.0 ; python_version >= '3.9'\n", (2, 1)),
        ("torch>=2.0,<3\ntorch>=1.13 ; sys_platform == 'darwin'\n", (1, 13)),
        ("torch==2.4.1\n", (2, 4)),
        ("torchvision>=0.9\ntorch\n", None),
        ("# torch>=1.8\n", None),
    ],
)
def test_the_lowest_bound_of_the_torch_requirement_is_the_target_version(tmp_path: Path, requirements: str, version: tuple[int, int] | None) -> None:
    _project(tmp_path, requirements_txt=requirements)
    assert discover(tmp_path).target_version == version


def test_pyproject_dependencies_come_before_requirements_txt(tmp_path: Path) -> None:
    _project(tmp_path, pyproject_toml='[project]\nname = "x"\ndependencies = ["torch>=2.0"]\n', requirements_txt="torch>=1.8\n")
    config = discover(tmp_path / "train.py")
    assert (config.target_version, config.target_version_declared_in) == ((2, 0), tmp_path / "pyproject.toml")


def test_a_configured_target_version_wins_over_the_declared_one(tmp_path: Path) -> None:
    _project(tmp_path, pyproject_toml='[project]\ndependencies = ["torch>=1.8"]\n[tool.torchcheck]\ntarget-version = "2.4"\n')
    assert discover(tmp_path).target_version == (2, 4)
    _project(tmp_path, pyproject_toml='[project]\ndependencies = ["torch>=1.8"]\n')
    overridden = with_overrides(discover(tmp_path), ['target-version = "2.4"'])
    assert (overridden.target_version, overridden.target_version_declared_in) == ((2, 4), None)


def test_only_the_nearest_project_declares(tmp_path: Path) -> None:
    _project(tmp_path, requirements_txt="torch>=1.8\n")
    inner = _project(tmp_path / "tools", pyproject_toml='[project]\nname = "tools"\n')
    assert discover(inner).target_version is None


def test_a_deprecation_whose_replacement_the_declared_torch_lacks_is_not_reported(tmp_path: Path) -> None:
    _project(tmp_path, train_py=TRAIN)
    options = LintOptions(paths=(tmp_path,), select=("TCK301",), use_cache=False)
    assert [d.code for d in lint(options).diagnostics] == ["TCK301"]
    _project(tmp_path, requirements_txt="torch>=1.8.0\n")
    assert lint(options).diagnostics == ()
    assert "target-version: 1.8 (the torch requirement in " in describe_settings(options)
