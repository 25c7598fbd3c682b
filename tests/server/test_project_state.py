"""The server's project index without a client: what is parsed, and which documents are resolved again."""

from __future__ import annotations

import shutil
from pathlib import Path

import libcst
import pytest

from tests.server.test_project_index import LOGITS_MODEL, MODEL, TRAIN
from torchcheck.lint import notebooks
from torchcheck.server.linting import Cell, lint_document, notebook_source
from torchcheck.server.project_state import ProjectIndexes

UNRELATED = "import torch\n\n\ndef scale(x):\n    return torch.nn.functional.softmax(x, dim=0) * 2\n"


class ParseCounter:
    """Counts the files libcst parses, by the name of what they define."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.parsed: list[str] = []
        original = libcst.parse_module

        def counting(source, *args, **kwargs):
            text = source.decode() if isinstance(source, bytes) else source
            self.parsed.append("model.py" if "class Net" in text else "train.py" if "def step" in text else "other")
            return original(source, *args, **kwargs)

        monkeypatch.setattr(libcst, "parse_module", counting)


def lint_into(indexes: ProjectIndexes, path: Path, text: str) -> dict[str, list[str]]:
    """Lint a buffer as the server does; the cross-file codes published, per URI."""
    result = lint_document(text, path)
    updates = indexes.update(path, path.as_uri(), result)
    return {uri: [d.code for d in standing] for uri, standing in updates}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.torchcheck]\n", encoding="utf-8")
    for name, text in (("model.py", MODEL), ("train.py", TRAIN), ("unrelated.py", UNRELATED)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def test_editing_an_imported_buffer_parses_only_that_buffer_and_republishes_the_importer(project: Path, monkeypatch):
    indexes = ProjectIndexes()
    assert lint_into(indexes, project / "train.py", TRAIN) == {(project / "train.py").as_uri(): ["TCK605"]}
    counter = ParseCounter(monkeypatch)
    updates = lint_into(indexes, project / "model.py", LOGITS_MODEL)
    assert counter.parsed == ["model.py"]
    assert updates == {(project / "model.py").as_uri(): [], (project / "train.py").as_uri(): []}


def test_a_saved_file_is_summarised_once_and_again_only_after_it_changes_on_disk(project: Path, monkeypatch):
    indexes = ProjectIndexes()
    counter = ParseCounter(monkeypatch)
    lint_into(indexes, project / "train.py", TRAIN)
    assert sorted(counter.parsed) == ["model.py", "train.py"]
    assert indexes.file_changed(project / "model.py") == []  # unchanged on disk: nothing read, nothing to publish
    assert sorted(counter.parsed) == ["model.py", "train.py"]
    (project / "model.py").write_text(LOGITS_MODEL + "\n", encoding="utf-8")
    assert indexes.file_changed(project / "model.py") == [((project / "train.py").as_uri(), ())]
    assert sorted(counter.parsed) == ["model.py", "model.py", "train.py"]


def test_a_change_to_a_file_no_finding_reads_republishes_nothing(project: Path):
    indexes = ProjectIndexes()
    lint_into(indexes, project / "train.py", TRAIN)
    assert lint_into(indexes, project / "unrelated.py", UNRELATED.replace("* 2", "* 3")) == {(project / "unrelated.py").as_uri(): []}


def test_a_buffer_that_stops_parsing_keeps_its_last_summary_for_its_importers(project: Path):
    indexes = ProjectIndexes()
    lint_into(indexes, project / "model.py", LOGITS_MODEL)
    assert lint_into(indexes, project / "train.py", TRAIN) == {(project / "train.py").as_uri(): []}
    assert lint_into(indexes, project / "model.py", LOGITS_MODEL + "def broken(:\n") == {(project / "model.py").as_uri(): []}
    assert indexes.standing(project / "train.py") == ()


def test_a_notebook_is_joined_so_that_findings_carry_the_number_of_their_cell(tmp_path: Path):
    cells = [
        Cell("# Notes\n", is_code=False),
        Cell("import torch\nlayer = torch.nn.Linear(2, 2)\n", is_code=True),
        Cell("out = layer.forward(torch.ones(2))", is_code=True),
    ]
    result = lint_document(notebook_source(cells), tmp_path / "analysis.ipynb")
    [finding] = result.diagnostics
    assert (finding.code, finding.cell, finding.location.row, finding.location.column) == ("TCK105", 3, 1, 7)
    assert notebooks.is_notebook(finding.filename)


def test_a_module_created_after_its_importer_was_opened_is_found_once_the_creation_is_reported(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text("[tool.torchcheck]\n", encoding="utf-8")
    indexes = ProjectIndexes()
    assert lint_into(indexes, tmp_path / "train.py", TRAIN) == {(tmp_path / "train.py").as_uri(): []}
    (tmp_path / "model.py").write_text(MODEL, encoding="utf-8")
    [(uri, standing)] = indexes.file_changed(tmp_path / "model.py", created_or_deleted=True)
    assert uri == (tmp_path / "train.py").as_uri() and [d.code for d in standing] == ["TCK605"]


PROJECTS = Path(__file__).resolve().parents[2] / "fixtures" / "lint" / "projects"


@pytest.mark.parametrize("corpus", sorted(p for p in PROJECTS.iterdir() if p.is_dir()), ids=lambda p: p.name)
def test_each_file_of_a_corpus_project_opened_alone_shows_exactly_its_marked_lines(corpus: Path, tmp_path: Path):
    from tests.rules.examples import expected_findings

    project = tmp_path / corpus.name
    shutil.copytree(corpus, project)
    own = corpus.name.split("_", 1)[0]
    (project / "pyproject.toml").write_text(f'[tool.torchcheck]\nextend-select = ["{own}"]\n', encoding="utf-8")
    for path in sorted(project.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        indexes = ProjectIndexes()  # a fresh editor: every other file is read from disk
        result = lint_document(text, path)
        indexes.update(path, path.as_uri(), result)
        found = sorted((d.location.row, d.code) for d in (*result.diagnostics, *indexes.standing(path)))
        assert found == sorted(expected_findings(text)), path.relative_to(project)
