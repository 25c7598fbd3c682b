"""What a release publishes: the distribution's name where users read it, its metadata and
license, and the pre-commit hooks."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import textwrap
from email.parser import Parser
from pathlib import Path

import pytest

import torchcheck

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
# "torchcheck" on PyPI is someone else's project (1.0.8, "helper functions for pytorch").
UNRELATED_PYPI_PROJECT = "torchcheck"
USER_DOCUMENTS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
PIP_INSTALL = re.compile(r"pip install ([^`#\n]*)")  # up to a comment or the end of the code
REQUIREMENT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
PYTHON_CLASSIFIER = "Programming Language :: Python :: {}"
SUPPORTED_PYTHONS = ("3.10", "3.11", "3.12", "3.13")


def normalized(name: str) -> str:
    """PEP 503: case and runs of `-`, `_`, `.` do not distinguish two projects."""
    return re.sub(r"[-_.]+", "-", name).lower()


def installed_requirements(text: str) -> list[str]:
    """The project names that the `pip install` commands in ``text`` install (not `-e .`)."""
    names = []
    for arguments in PIP_INSTALL.findall(text):
        for argument in arguments.split():
            argument = argument.strip("\"'")
            if argument.startswith(("-", ".")):
                continue  # options and local paths (`-e .`)
            match = REQUIREMENT_NAME.match(argument)
            if match:
                names.append(match.group())
    return names


def test_distribution_name_differs_from_the_unrelated_torchcheck_on_pypi() -> None:
    assert normalized(PROJECT["name"]) != normalized(UNRELATED_PYPI_PROJECT)


def test_readme_install_lines_name_the_projects_distribution() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ours = [name for name in installed_requirements(readme) if normalized(name).startswith("torchcheck")]
    assert ours, "README.md has no `pip install` line for torchcheck"
    assert {normalized(name) for name in ours} == {normalized(PROJECT["name"])}


def test_install_hint_of_errors_names_the_projects_distribution() -> None:
    names = installed_requirements(torchcheck.INSTALL_HINT)
    assert [normalized(name) for name in names] == [normalized(PROJECT["name"])]


@pytest.mark.parametrize("document", USER_DOCUMENTS, ids=lambda path: path.name)
def test_no_document_tells_users_to_install_the_unrelated_project(document: Path) -> None:
    names = {normalized(name) for name in installed_requirements(document.read_text(encoding="utf-8"))}
    assert normalized(UNRELATED_PYPI_PROJECT) not in names, f"{document.name} installs PyPI's unrelated `torchcheck`"


def test_classifiers_name_every_python_version_that_requires_python_allows() -> None:
    assert PROJECT["requires-python"] == f">={SUPPORTED_PYTHONS[0]}"
    for version in SUPPORTED_PYTHONS:
        assert PYTHON_CLASSIFIER.format(version) in PROJECT["classifiers"]


def test_every_project_url_points_at_the_repository() -> None:
    assert set(PROJECT["urls"]) == {"Homepage", "Documentation", "Repository", "Issues", "Changelog"}
    assert all(url.startswith("https://github.com/torchcheck/torchcheck") for url in PROJECT["urls"].values())


def _built_metadata(tmp_path: Path) -> Path:
    """The wheel's .dist-info as setuptools prepares it, built from a copy of the sources so the
    checkout (whose src/ is on sys.path) never gets a second distribution's metadata."""
    source = tmp_path / "source"
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    output = tmp_path / "metadata"
    output.mkdir()
    prepare = f"from setuptools import build_meta; print(build_meta.prepare_metadata_for_build_wheel({str(output)!r}))"
    completed = subprocess.run([sys.executable, "-c", prepare], cwd=source, capture_output=True, text=True, check=True)
    return output / completed.stdout.strip().splitlines()[-1]


def test_built_metadata_declares_mit_and_ships_the_license_file(tmp_path: Path) -> None:
    dist_info = _built_metadata(tmp_path)
    metadata = Parser().parsestr((dist_info / "METADATA").read_text(encoding="utf-8"))
    assert normalized(metadata["Name"]) == normalized(PROJECT["name"])
    assert metadata["License-Expression"] == "MIT"
    assert metadata.get_all("License-File") == ["LICENSE"]
    shipped = (dist_info / "licenses" / "LICENSE").read_text(encoding="utf-8")
    assert shipped == (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert shipped.startswith("MIT License") and "the torchcheck authors" in shipped


def _hook_entries() -> dict[str, str]:
    """Hook id -> entry, read from .pre-commit-hooks.yaml (flat, one key per line)."""
    entries, hook = {}, None
    for line in (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8").splitlines():
        key, _, value = line.strip().removeprefix("- ").partition(": ")
        if key == "id":
            hook = value
        elif key == "entry" and hook is not None:
            entries[hook] = value
    return entries


VENDORED = textwrap.dedent(
    """\
    import torch

    logits = model.forward(images)
    """
)


def _run_hook(entry: str, project: Path) -> subprocess.CompletedProcess[str]:
    """Run a hook's entry as pre-commit does: the staged file named on the command line."""
    command = entry.split()
    assert command[0] == "torchcheck"
    arguments = [sys.executable, "-m", "torchcheck", *command[1:], "--no-cache", "vendored/model.py"]
    return subprocess.run(arguments, cwd=project, capture_output=True, text=True)


@pytest.fixture
def project_with_excluded_file(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text('[tool.torchcheck]\nextend-exclude = ["vendored"]\n', encoding="utf-8")
    (tmp_path / "vendored").mkdir()
    (tmp_path / "vendored" / "model.py").write_text(VENDORED, encoding="utf-8")
    return tmp_path


def test_pre_commit_offers_the_lint_and_the_fix_hook() -> None:
    assert set(_hook_entries()) == {"torchcheck-lint", "torchcheck-fix"}


@pytest.mark.parametrize(("hook", "entry"), sorted(_hook_entries().items()))
def test_pre_commit_hook_leaves_a_configured_exclude_untouched_when_pre_commit_names_it(
    hook: str, entry: str, project_with_excluded_file: Path
) -> None:
    result = _run_hook(entry, project_with_excluded_file)
    assert result.returncode == 0, f"{hook}: {result.stdout}{result.stderr}"
    assert (project_with_excluded_file / "vendored" / "model.py").read_text(encoding="utf-8") == VENDORED


def test_without_force_exclude_a_named_file_is_linted_despite_the_exclude(project_with_excluded_file: Path) -> None:
    result = _run_hook(_hook_entries()["torchcheck-lint"].replace(" --force-exclude", ""), project_with_excluded_file)
    assert result.returncode == 1
    assert "TCK105" in result.stdout
