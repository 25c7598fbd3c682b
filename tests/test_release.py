"""What a release publishes: the distribution's name where users read it, its metadata and
license, and the pre-commit hooks."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tarfile
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


MARKDOWN_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)[^)]*\)")
HTML_LINK = re.compile(r"""(?:href|src)=["']([^"']+)["']""")


def test_readme_links_are_absolute_so_they_work_on_the_package_index_page() -> None:
    # The package index shows README.md without the repository around it, so a link to
    # `docs/checks.md` (or to `#a-heading`) leads nowhere there.
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = MARKDOWN_LINK.findall(readme) + HTML_LINK.findall(readme)
    assert targets, "no links found: the pattern no longer matches the README"
    relative = [target for target in targets if not target.startswith(("https://", "http://", "mailto:"))]
    assert relative == []


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


# What a checkout holds that is not the project's: never copied into a build.
NOT_SOURCES = shutil.ignore_patterns(".git", ".venv", ".cache", "__pycache__", "*.egg-info", ".torchcheck_cache", "build", "dist")
SDIST_TOP_LEVEL = {"PKG-INFO", "setup.cfg", "pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md", "MANIFEST.in"}


def _sdist_members(tmp_path: Path) -> list[str]:
    """The files of the sdist that setuptools builds from a copy of the checkout, relative to
    its top folder."""
    source = tmp_path / "checkout"
    shutil.copytree(ROOT, source, ignore=NOT_SOURCES, symlinks=True)
    build = f"from setuptools import build_meta; print(build_meta.build_sdist({str(tmp_path / 'dist')!r}))"
    completed = subprocess.run([sys.executable, "-c", build], cwd=source, capture_output=True, text=True, check=True)
    with tarfile.open(tmp_path / "dist" / completed.stdout.strip().splitlines()[-1]) as sdist:
        return [member.name.split("/", 1)[1] for member in sdist.getmembers() if member.isfile()]


def test_the_sdist_ships_the_package_and_the_changelog_and_no_tests(tmp_path: Path) -> None:
    members = _sdist_members(tmp_path)
    package = {path.relative_to(ROOT).as_posix() for path in (ROOT / "src" / "torchcheck").rglob("*") if path.is_file() and "__pycache__" not in path.parts}
    shipped_package = {name for name in members if name.startswith("src/torchcheck/")}
    assert shipped_package == package
    others = {name for name in members if not name.startswith(("src/torchcheck/", "src/torchcheck_lint.egg-info/"))}
    assert others <= SDIST_TOP_LEVEL and "CHANGELOG.md" in others, others - SDIST_TOP_LEVEL  # tests/ needs the whole checkout


def _hook_fields(field: str) -> dict[str, str]:
    """Hook id -> the value of ``field``, read from .pre-commit-hooks.yaml (flat, one key per line)."""
    values, hook = {}, None
    for line in (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8").splitlines():
        key, _, value = line.strip().removeprefix("- ").partition(": ")
        if key == "id":
            hook = value
        elif key == field and hook is not None:
            values[hook] = value
    return values


def _hook_entries() -> dict[str, str]:
    return _hook_fields("entry")


# The tags pre-commit's `identify` gives each kind of file that torchcheck lints by default
# (identify's extension table: `.ipynb` is {"jupyter", "json", "text"}).
IDENTIFY_TAGS = {"*.py": {"python", "text"}, "*.pyi": {"pyi", "text"}, "*.ipynb": {"jupyter", "json", "text"}}


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


@pytest.mark.parametrize(("hook", "types_or"), sorted(_hook_fields("types_or").items()))
def test_pre_commit_hooks_pass_every_kind_of_file_torchcheck_lints_notebooks_included(hook: str, types_or: str) -> None:
    from torchcheck.config import DEFAULT_INCLUDE

    tags = {tag.strip() for tag in types_or.strip("[]").split(",")}
    assert set(IDENTIFY_TAGS) == set(DEFAULT_INCLUDE)
    skipped = [pattern for pattern in DEFAULT_INCLUDE if not tags & IDENTIFY_TAGS[pattern]]
    assert skipped == [], f"{hook} skips {skipped}"
    assert "text" not in tags and "json" not in tags  # no other JSON or text file is handed to torchcheck


def test_pre_commit_hook_lints_a_staged_notebook(tmp_path: Path) -> None:
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": VENDORED}
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [cell]}
    (tmp_path / "analysis.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    command = _hook_entries()["torchcheck-lint"].split()[1:]
    result = subprocess.run([sys.executable, "-m", "torchcheck", *command, "--no-cache", "analysis.ipynb"], cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 1, result.stderr
    assert "analysis.ipynb:cell 1:3:" in result.stdout and "TCK105" in result.stdout


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
