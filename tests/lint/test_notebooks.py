"""Jupyter notebooks: cells joined, IPython syntax neutralised, findings per cell, fixes written back."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import libcst as cst
import pytest

from tests.lint.test_formats import assert_valid_sarif, sarif_validator  # noqa: F401 - a fixture
from torchcheck.cli import main
from torchcheck.lint import notebooks, registry
from torchcheck.lint.diagnostic import Diagnostic, RelatedPlace
from torchcheck.lint.project import (
    INSTANCE_OUTPUT,
    MOVED_BY_APPLY,
    NO,
    PROJECT,
    YES,
    Condition,
    ExportSummary,
    IndexedFile,
    ProjectIndex,
    Symbol,
)
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid

nbformat = pytest.importorskip("nbformat")

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "notebooks"
JUPYTERLAB = "jupyterlab_training.ipynb"
RULES = registry.all_rules()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the notebook fixtures as the working directory."""
    monkeypatch.chdir(tmp_path)
    for fixture in FIXTURES.iterdir():
        shutil.copy(fixture, tmp_path / fixture.name)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["lint", "--no-cache", *args])
    return code, capsys.readouterr().out


def notebook_of(*sources: str, language: str = "python") -> bytes:
    """A notebook with one code cell per source, written as JupyterLab writes it."""
    cells = [
        {"cell_type": "code", "execution_count": None, "id": f"cell-{n}", "metadata": {}, "outputs": [], "source": source.splitlines(True)}
        for n, source in enumerate(sources)
    ]
    metadata = {"kernelspec": {"display_name": language, "language": language, "name": language}}
    document = {"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}
    return (json.dumps(document, sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode()


def findings(source: bytes) -> list[tuple[int | None, int, int, str]]:
    result = notebooks.lint_notebook(source, "n.ipynb", RULES)
    return [(d.cell, d.location.row, d.location.column, d.code) for d in result.diagnostics]


# ----------------------------------------------------------------------------- joining cells


def test_ipython_lines_become_pass_without_moving_any_row() -> None:
    notebook = notebooks.parse(notebook_of("%matplotlib inline\nimport torch\n!pip list\nfiles = !ls\nx = torch.ones(1)"))
    assert isinstance(notebook, notebooks.Notebook)
    assert notebook.python_source == "pass\nimport torch\npass\npass\nx = torch.ones(1)\n"


def test_a_cell_magic_blanks_its_whole_cell() -> None:
    notebook = notebooks.parse(notebook_of("%%bash\nfor f in *; do echo $f; done\n", "import torch\n"))
    assert isinstance(notebook, notebooks.Notebook)
    assert notebook.python_source == "\n\nimport torch\n"


def test_a_shell_command_continued_with_backslashes_is_blanked_to_its_end() -> None:
    source = "!pip install -q \\\n    transformers \\\n    peft\nimport torch\nx = 1 + \\\n    2\n"
    notebook = notebooks.parse(notebook_of(source))
    assert isinstance(notebook, notebooks.Notebook)
    assert notebook.python_source == "pass\n\n\nimport torch\nx = 1 + \\\n    2\n"
    cst.parse_module(notebook.python_source)


def test_python_that_looks_like_ipython_is_left_alone() -> None:
    source = 'text = ("%d items"\n        % 3)\ndoc = """Is this a help line?\n!not a shell command\n"""\nok = 1 != 2\n'
    notebook = notebooks.parse(notebook_of(source))
    assert isinstance(notebook, notebooks.Notebook)
    assert notebook.python_source == source


def test_help_lines_inside_a_block_keep_the_block_valid() -> None:
    notebook = notebooks.parse(notebook_of("for step in range(2):\n    torch.optim.SGD?\n"))
    assert isinstance(notebook, notebooks.Notebook)
    assert notebook.python_source == "for step in range(2):\n    pass\n"


def test_names_flow_between_cells_and_findings_count_rows_within_their_cell() -> None:
    source = notebook_of("import torch\nmodel = torch.nn.Linear(2, 2)", "%time y = 1\ny = model.forward(torch.ones(1, 2))")
    assert findings(source) == [(2, 2, 5, "TCK105")]


def test_noqa_silences_one_line_of_a_cell() -> None:
    source = notebook_of("import torch\nmodel = torch.nn.Linear(2, 2)\na = model.forward(1)  # noqa: TCK105\nb = model.forward(2)")
    assert findings(source) == [(1, 4, 5, "TCK105")]


def test_the_jupyterlab_notebook_reports_findings_in_the_cells_jupyter_shows() -> None:
    source = (FIXTURES / JUPYTERLAB).read_bytes()
    assert findings(source) == [(4, 4, 35, "TCK105"), (4, 7, 5, "TCK101")]


def test_a_notebook_in_another_language_is_not_linted() -> None:
    assert findings(notebook_of("model.forward(x)", language="R")) == []


@pytest.mark.parametrize(
    ("fixture", "message"),
    [
        ("not_json.ipynb", "not a notebook: the file is not valid JSON"),
        ("not_a_notebook.ipynb", 'not a Jupyter notebook: no "nbformat": 4 key'),
    ],
)
def test_a_file_that_is_not_a_notebook_is_one_tck000_finding(fixture: str, message: str) -> None:
    result = notebooks.lint_notebook((FIXTURES / fixture).read_bytes(), fixture, RULES)
    assert [(d.code, d.cell, d.message.startswith(message)) for d in result.diagnostics] == [("TCK000", None, True)]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (b"", "not a notebook: the file is not valid JSON"),
        (b"[" * 100_000 + b"]" * 100_000, notebooks.TOO_DEEP),
        ('{"nbformat": 4, "cells": [], "metadata": {"a": "é"}}'.encode("latin-1"), "not a notebook: the file is not valid JSON"),
        (b'{"nbformat": 4, "metadata": {}, "cells": [{"cell_type": "code", "source": 3}]}', 'not a Jupyter notebook: cell 1 has no "source"'),
        (b'{"nbformat": 4, "metadata": {}, "cells": [{"cell_type": "code", "source": "\\ud800"}]}', "not a Jupyter notebook: cell 1 holds text"),
    ],
)
@pytest.mark.parametrize("fix", [False, True])
def test_hostile_notebooks_are_one_tck000_finding_and_never_raise(source: bytes, message: str, fix: bool) -> None:
    result = notebooks.lint_notebook(source, "hostile.ipynb", RULES, fix=fix)
    assert [(d.code, d.message.startswith(message)) for d in result.diagnostics] == [("TCK000", True)]
    assert result.fixed_source is None


def test_an_old_format_notebook_is_asked_to_be_saved_again() -> None:
    result = notebooks.lint_notebook(b'{"nbformat": 3, "worksheets": [], "metadata": {}}', "old.ipynb", RULES)
    assert [d.message for d in result.diagnostics] == [notebooks.OLD_FORMAT.format(version=3)]


# ----------------------------------------------------------------------------- the command line


def test_lint_finds_notebooks_in_a_directory_and_names_the_cell(project: Path, capsys) -> None:
    code, out = run(capsys, "--output-format", "concise", ".")
    assert code == 1
    assert "jupyterlab_training.ipynb:cell 4:4:35: TCK105 [*]" in out
    assert "jupyterlab_training.ipynb:cell 4:7:5: TCK101" in out
    assert "string_sources.ipynb:cell 2:1:7: TCK105" in out
    assert "not_json.ipynb:1:1: TCK000" in out and "not_a_notebook.ipynb:1:1: TCK000" in out


def test_json_output_has_ruffs_cell_field_and_rows_within_the_cell(project: Path, capsys) -> None:
    _, out = run(capsys, "--output-format", "json", JUPYTERLAB)
    items = json.loads(out)
    assert [(item["cell"], item["location"], item["noqa_row"]) for item in items] == [
        (4, {"column": 35, "row": 4}, 4),
        (4, {"column": 5, "row": 7}, 7),
    ]
    assert items[0]["fix"]["edits"][0]["location"] == {"column": 35, "row": 4}


def test_sarif_and_github_output_name_the_cell(project: Path, capsys, sarif_validator: Any) -> None:
    _, out = run(capsys, "--output-format", "sarif", JUPYTERLAB)
    location = assert_valid_sarif(sarif_validator, out)["runs"][0]["results"][0]["locations"][0]
    assert location["properties"] == {"cell": 4} and location["physicalLocation"]["region"]["startLine"] == 4
    _, out = run(capsys, "--output-format", "github", JUPYTERLAB)
    first = out.splitlines()[0]
    assert "line=" not in first and "jupyterlab_training.ipynb:cell 4:4:35: TCK105" in first


def test_include_and_exclude_settings_decide_whether_notebooks_are_linted(project: Path, capsys) -> None:
    (project / "pyproject.toml").write_text('[tool.torchcheck]\ninclude = ["*.py"]\n')
    assert run(capsys, "--show-files", ".")[1] == ""
    (project / "pyproject.toml").write_text('[tool.torchcheck]\ninclude = ["*.py"]\nextend-include = ["string_*.ipynb"]\n')
    assert run(capsys, "--show-files", ".")[1].split() == ["string_sources.ipynb"]
    (project / "pyproject.toml").write_text('[tool.torchcheck]\nextend-exclude = ["not_*.ipynb", "jupyterlab_*"]\n')
    assert run(capsys, "--show-files", ".")[1].split() == ["string_sources.ipynb"]


def test_fix_changes_only_the_fixed_line_and_keeps_every_other_byte(project: Path, capsys) -> None:
    before = (project / JUPYTERLAB).read_bytes()
    code, out = run(capsys, "--fix", "--output-format", "concise", JUPYTERLAB)
    after = (project / JUPYTERLAB).read_bytes()
    changed = [(old, new) for old, new in zip(before.splitlines(), after.splitlines()) if old != new]
    assert len(before.splitlines()) == len(after.splitlines())
    assert changed == [
        (b'    "    loss = nn.functional.mse_loss(model.forward(x), y)\\n",', b'    "    loss = nn.functional.mse_loss(model(x), y)\\n",')
    ]
    assert code == 1 and "cell 4:7:5: TCK101" in out and "TCK105" not in out
    nbformat.validate(nbformat.reads(after.decode(), as_version=4))


def test_an_unsafe_fix_on_a_cells_last_line_keeps_it_without_a_line_break(project: Path, capsys) -> None:
    run(capsys, "--fix", "--unsafe-fixes", JUPYTERLAB)
    source = json.loads((project / JUPYTERLAB).read_text())["cells"][3]["source"]
    assert source[-1] == "    losses.append(loss.item())"


def test_fix_keeps_string_sources_and_a_two_space_layout(project: Path, capsys) -> None:
    run(capsys, "--fix", "string_sources.ipynb")
    after = (project / "string_sources.ipynb").read_text()
    document = json.loads(after)
    assert document["cells"][1]["source"] == "out = model(torch.ones(1, 2))\n"
    assert after == json.dumps(document, indent=2)
    nbformat.validate(nbformat.reads(after, as_version=4))


def test_fix_leaves_a_notebook_whose_layout_it_cannot_reproduce(project: Path, capsys) -> None:
    compact = json.dumps(json.loads(notebook_of("import torch\nm = torch.nn.Linear(1, 1)\nm.forward(1)\n")), separators=(",", ":"))
    (project / "compact.ipynb").write_text(compact)
    code, out = run(capsys, "--fix", "--output-format", "concise", "compact.ipynb")
    assert (project / "compact.ipynb").read_text() == compact
    assert code == 1 and "compact.ipynb:cell 1:3:1: TCK105 `.forward()`" in out  # no [*]: no fix is offered


def test_a_fix_that_would_rewrite_an_ipython_line_is_refused() -> None:
    notebook = notebooks.parse(notebook_of("!pip list\nimport torch\n"))
    assert isinstance(notebook, notebooks.Notebook)
    assert notebooks.split_fixed(notebook, "import torch\n") is None
    assert notebooks.split_fixed(notebook, "pass\nimport torch as T\n") == {0: "!pip list\nimport torch as T\n"}


def test_a_fix_goes_to_its_own_cell_among_cells_with_the_same_lines() -> None:
    notebook = notebooks.parse(notebook_of("%time a\nm.forward(1)\n", "%time a\nm.forward(1)\n", "%time a\nm.forward(1)\n"))
    assert isinstance(notebook, notebooks.Notebook)
    fixed = "pass\nm.forward(1)\npass\nm(1)\npass\nm.forward(1)\n"
    assert notebooks.split_fixed(notebook, fixed) == {1: "%time a\nm(1)\n"}


def test_diff_is_a_patch_of_the_notebook_file_that_git_applies(project: Path, capsys) -> None:
    before = (project / JUPYTERLAB).read_bytes()
    code, out = run(capsys, "--diff", JUPYTERLAB)
    assert (project / JUPYTERLAB).read_bytes() == before
    assert '-    "    loss = nn.functional.mse_loss(model.forward(x), y)\\n",' in out
    (project / "fix.patch").write_text(out)
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "apply", "fix.patch"], cwd=project, check=True)
    assert b"mse_loss(model(x), y)" in (project / JUPYTERLAB).read_bytes()


def test_add_noqa_comments_each_finding_in_its_cell_and_keeps_magics(project: Path, capsys) -> None:
    path = project / "magics.ipynb"
    path.write_bytes(notebook_of("%load_ext autoreload\nimport torch\nm = torch.nn.Linear(1, 1)", "!nvidia-smi\nm.forward(1)"))
    main(["lint", "--no-cache", "--add-noqa", "magics.ipynb"])
    capsys.readouterr()
    sources = ["".join(cell["source"]) for cell in json.loads(path.read_text())["cells"]]
    assert sources == ["%load_ext autoreload\nimport torch\nm = torch.nn.Linear(1, 1)", "!nvidia-smi\nm.forward(1)  # noqa: TCK105"]
    assert run(capsys, "magics.ipynb")[0] == 0


def test_cached_findings_keep_their_cell(project: Path, capsys) -> None:
    first = main(["lint", "--output-format", "concise", JUPYTERLAB]), capsys.readouterr().out
    second = main(["lint", "--output-format", "concise", JUPYTERLAB]), capsys.readouterr().out
    assert first == second and "cell 4:4:35" in second[1]


def test_stdin_lints_a_notebook_and_prints_it_fixed(project: Path) -> None:
    source = (project / "string_sources.ipynb").read_bytes()
    command = [sys.executable, "-m", "torchcheck", "lint", "--no-cache", "--output-format", "concise", "--stdin-filename", "editor.ipynb", "-"]
    linted = subprocess.run(command, cwd=project, input=source, capture_output=True, check=False)
    assert linted.returncode == 1 and b"editor.ipynb:cell 2:1:7: TCK105" in linted.stdout
    fixed = subprocess.run([*command, "--fix"], cwd=project, input=source, capture_output=True, check=False)
    assert json.loads(fixed.stdout)["cells"][1]["source"] == "out = model(torch.ones(1, 2))\n"


def test_a_notebook_with_a_syntax_error_names_the_cell() -> None:
    source = notebook_of("import torch\n", textwrap.dedent("""\
        x = 1
        def broken(:
        """))
    assert [(cell, row, code) for cell, row, _, code in findings(source)] == [(2, 2, "TCK000")]


def test_the_configured_and_the_walks_default_include_agree() -> None:
    from torchcheck import config
    from torchcheck.lint import files

    assert config.DEFAULT_INCLUDE == files.DEFAULT_INCLUDE


# ----------------------------------------------------------------------------- places that messages name

NOTEBOOK_IMPORTS = "import torch\nfrom torch import nn\nimport torch.nn.functional as F\n"
SOFTMAX_NET_CELL = textwrap.dedent("""\
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 3)

        def forward(self, x):
            return F.softmax(self.fc(x), dim=1)
    """)
LOSS_CELL = "x, y = torch.ones(2, 4), torch.zeros(2).long()\nloss = nn.CrossEntropyLoss()(Net()(x), y)\n"
APPLY_OVERRIDE_CELL = textwrap.dedent("""\
    class Model(nn.Module):
        def _apply(self, fn):
            self = super()._apply(fn)
            self.stride = fn(self.stride)
            return self
    """)


def test_a_place_in_the_same_notebook_is_named_by_its_cell_in_the_message_and_as_related_place() -> None:
    result = notebooks.lint_notebook(notebook_of(NOTEBOOK_IMPORTS, SOFTMAX_NET_CELL, LOSS_CELL), "t2.ipynb", RULES)
    [finding] = [d for d in result.diagnostics if d.code == "TCK605"]
    assert (finding.cell, finding.location.row) == (3, 2)
    assert finding.message.endswith("in `Net` at t2.ipynb:cell 2:7)")
    assert finding.related == RelatedPlace("t2.ipynb", 7, 2, "`F.softmax(self.fc(x), dim=1)` in `Net`")


def test_the_summary_of_a_notebook_names_its_lines_by_cell_for_other_files_findings() -> None:
    exports = notebooks.lint_notebook(notebook_of(NOTEBOOK_IMPORTS, SOFTMAX_NET_CELL, LOSS_CELL), "a.ipynb", RULES).exports
    assert exports is not None
    index = ProjectIndex({"/p/a.ipynb": IndexedFile("a.ipynb", exports)}, lambda importer, module, level: None)
    answer = index.answer("/p/a.ipynb", Condition(Symbol(None, "Net"), INSTANCE_OUTPUT, "softmax"))
    assert answer is not None and answer.place == "`F.softmax(self.fc(x), dim=1)` in `Net` at a.ipynb:cell 2:7"
    assert answer.related == RelatedPlace("a.ipynb", 7, 2, "`F.softmax(self.fc(x), dim=1)` in `Net`")


def test_a_project_fact_found_in_another_notebook_names_its_cell() -> None:
    source = notebook_of("import torch\nfrom torch import nn\n", APPLY_OVERRIDE_CELL)
    exports = notebooks.lint_notebook(source, "detect.ipynb", registry.rules_by_code(["TCK606"])).exports
    assert exports is not None
    files = {"/p/detect.ipynb": IndexedFile("detect.ipynb", exports), "/p/head.py": IndexedFile("head.py", ExportSummary())}
    index = ProjectIndex(files, lambda importer, module, level: None)
    answer = index.answer("/p/head.py", Condition(Symbol(None, ""), f"{PROJECT}:{MOVED_BY_APPLY}:stride", NO))
    assert answer is not None and answer.value == YES
    assert answer.place == "an `_apply` override at detect.ipynb:cell 2:2"
    assert answer.related is not None and (answer.related.cell, answer.related.row) == (2, 2)


def test_the_cell_map_and_the_related_place_survive_the_cache() -> None:
    result = notebooks.lint_notebook(notebook_of(NOTEBOOK_IMPORTS, SOFTMAX_NET_CELL, LOSS_CELL), "t2.ipynb", RULES)
    assert result.exports is not None and result.exports.cells == ((1, 1), (4, 2), (11, 3))
    assert ExportSummary.from_dict(json.loads(json.dumps(result.exports.to_dict()))) == result.exports
    for diagnostic in result.diagnostics:
        assert Diagnostic.from_dict(json.loads(json.dumps(diagnostic.to_dict()))) == diagnostic


# ----------------------------------------------------------------------------- fixes next to a cell boundary

def test_fixed_lines_on_both_sides_of_a_cell_boundary_each_stay_in_their_cell() -> None:
    notebook = notebooks.parse(notebook_of("import torch\nx = torch.load(f)\n", "y = torch.load(g)\n"))
    assert isinstance(notebook, notebooks.Notebook)
    fixed = "import torch\nx = torch.load(f, weights_only=True)\ny = torch.load(g, weights_only=True)\n"
    assert notebooks.split_fixed(notebook, fixed) == {
        0: "import torch\nx = torch.load(f, weights_only=True)\n",
        1: "y = torch.load(g, weights_only=True)\n",
    }


def test_a_line_added_next_to_a_cell_boundary_stays_with_the_line_it_was_added_to() -> None:
    notebook = notebooks.parse(notebook_of("a = compute(1)\n", "b = compute(2)\n"))
    assert isinstance(notebook, notebooks.Notebook)
    fixed = "a = compute(1, strict=True)\nb = compute(\n    2,\n    strict=True,\n)\n"
    assert notebooks.split_fixed(notebook, fixed) == {0: "a = compute(1, strict=True)\n", 1: "b = compute(\n    2,\n    strict=True,\n)\n"}


def test_fix_applies_fixes_on_adjacent_lines_of_two_cells(project: Path) -> None:
    from torchcheck.lint.api import LintOptions, lint

    path = project / "adjacent.ipynb"
    path.write_bytes(notebook_of("import torch\nx = torch.load(f)\n", "y = torch.load(g)\n"))
    linted = lint(LintOptions(paths=(path,), use_cache=False))
    assert [(d.cell, d.fix is not None) for d in linted.diagnostics] == [(1, True), (2, True)]
    fixed = lint(LintOptions(paths=(path,), use_cache=False, fix=True, unsafe_fixes=True))
    assert fixed.fixes_applied == 2 and fixed.diagnostics == ()
    cells = json.loads(path.read_text())["cells"]
    assert "".join(cells[0]["source"]) == "import torch\nx = torch.load(f, weights_only=True)\n"
    assert "".join(cells[1]["source"]) == "y = torch.load(g, weights_only=True)\n"


class JoinsMarker(Rule):
    """Replaces every `marker(...)` call by `checked()`, on one line."""

    code = "TCK994"
    name = "joins-marker"
    message = "marker called"
    fix_safety = FixSafety.SAFE
    VALID = (Valid("checked()"),)
    INVALID = (Invalid("marker(1)  # TCK994", expected_replacement="checked()\n"),)

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "marker":
            self.report(node, replacement=cst.Call(func=cst.Name("checked")))


def test_a_fix_whose_change_would_span_two_cells_is_neither_offered_nor_made() -> None:
    # One call split over two cells: its fix joins the lines, which no cell can hold alone.
    source = notebook_of("import os\nx = marker(\n", "    1)\ny = marker(2)\n")
    lint = notebooks.lint_notebook(source, "split.ipynb", [JoinsMarker])
    assert [(d.cell, d.location.row, d.fix is not None) for d in lint.diagnostics] == [(1, 2, False), (2, 2, True)]
    fixed = notebooks.lint_notebook(source, "split.ipynb", [JoinsMarker], fix=True)
    assert fixed.fixed_source is not None and fixed.fixes_applied == 1
    cells = json.loads(fixed.fixed_source)["cells"]
    assert ["".join(cell["source"]) for cell in cells] == ["import os\nx = marker(\n", "    1)\ny = checked()\n"]
    assert [(d.cell, d.location.row, d.fix is not None) for d in fixed.diagnostics] == [(1, 2, False)]


def _replay(old: list[str], new: list[str], opcodes: list[tuple[str, int, int, int, int]]) -> list[str]:
    rebuilt: list[str] = []
    for tag, start, end, new_start, new_end in opcodes:
        if tag == "equal":
            assert old[start:end] == new[new_start:new_end]
        rebuilt += old[start:end] if tag == "equal" else new[new_start:new_end]
    return rebuilt


@pytest.mark.parametrize("pairs_to_diff", [0, 10, 1_000_000])
def test_line_opcodes_turn_the_old_lines_into_the_new_ones(monkeypatch: pytest.MonkeyPatch, pairs_to_diff: int) -> None:
    import random

    from torchcheck.lint import notebooks

    monkeypatch.setattr(notebooks, "_MAX_PAIRS_TO_DIFF", pairs_to_diff)
    generator = random.Random(pairs_to_diff)
    for _ in range(300):
        old = [generator.choice("abcdefg") if generator.random() < 0.7 else str(generator.random()) for _ in range(generator.randint(0, 40))]
        new = list(old)
        for _ in range(generator.randint(0, 4)):
            at = generator.randint(0, len(new))
            choice = generator.random()
            if choice < 0.3:
                new.insert(at, generator.choice("abx"))
            elif new:
                new[min(at, len(new) - 1)] = f"changed {generator.random()}"
        assert _replay(old, new, notebooks.line_opcodes(old, new)) == new


def test_aligning_a_fixed_cell_of_many_equal_lines_is_not_quadratic() -> None:
    import time

    from torchcheck.lint.notebooks import line_opcodes

    old = ["y = 1\n"] * 40_000
    old[10_000] = "x = torch.load(f)\n"
    old[30_000] = "z = torch.load(g)\n"
    new = list(old)
    new[10_000] = "x = torch.load(f, weights_only=True)\n"
    new[30_000] = "z = torch.load(g, weights_only=True)\n"
    started = time.perf_counter()
    opcodes = line_opcodes(old, new)
    assert time.perf_counter() - started < 2.0  # difflib alone takes minutes on these lines
    assert [tag for tag, *_ in opcodes if tag != "equal"] == ["replace", "replace"]


def test_a_cells_last_expression_is_its_output_not_a_discarded_result() -> None:
    source = notebook_of(
        "import torch\npreds = torch.ones(3)\npreds.cpu()\n",  # shown as the cell's output
        "preds.cpu()\nprint(preds)\n",  # not the last statement: discarded
        "preds.cuda();\n",  # a semicolon hides the output
        "if preds.numel():\n    preds.cpu()\n",  # only a top-level expression is shown
        "preds.cpu()  # shown\n# a comment after it\n",
    )
    assert [(cell, code) for cell, _, _, code in findings(source) if code == "TCK202"] == [(2, "TCK202"), (3, "TCK202"), (4, "TCK202")]
