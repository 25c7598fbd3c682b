"""Every ```python block in README.md and docs/ runs as written.

A page is read as a reader would try it: its blocks run top to bottom in one namespace (as if
pasted into one Python session), in a fresh temporary directory, so a later block may use what
an earlier one defined. A block that defines test functions is a test module: it is written to
a file and run by pytest with the torchcheck plugin, and every test in it must pass.

A block that cannot run as written (a signature, an excerpt that imports the reader's own
package) is marked on the line above its fence with

    <!-- not run: the reason -->

which GitHub and the package index do not render. Keep such blocks few: a runnable example
is one a reader can trust.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

# pytester's in-process runs drop the modules first imported during the run, and torch cannot
# be imported twice in one process: import what the plugin loads lazily here, once (as
# tests/plugin/conftest.py does).
import torch  # noqa: F401
import torch.distributed  # noqa: F401  (a distributed test's ranks need it)
import torch.nn.parallel  # noqa: F401

import torchcheck.checks.devices  # noqa: F401
from torchcheck.checks.seeding import seeded
from torchcheck.checks.state import preserved_state

with seeded(0):
    pass

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
FENCE = re.compile(r"^(?P<indent> *)```(?P<info>[^`\n]*)$")
NOT_RUN = re.compile(r"^\s*<!-- not run: (?P<reason>.+?) -->\s*$")
# An inner pytest run is what a reader who installed torchcheck-lint[runtime] gets: the
# torchcheck plugin and none of the other plugins installed here.
INNER_PYTEST_ARGUMENTS = ("-p", "torchcheck.plugin", "-p", "no:cacheprovider", "-q")


@dataclass(frozen=True)
class CodeBlock:
    document: Path
    line: int  # of the opening fence, counted from 1
    language: str
    code: str
    not_run_reason: str | None

    @property
    def where(self) -> str:
        name = self.document.relative_to(ROOT) if self.document.is_relative_to(ROOT) else self.document.name
        return f"{name}:{self.line}"

    @property
    def is_test_module(self) -> bool:
        tree = ast.parse(self.code)
        return any(isinstance(node, ast.FunctionDef) and node.name.startswith("test") for node in tree.body)


def code_blocks(document: Path) -> list[CodeBlock]:
    """The fenced blocks of a Markdown document, with the `not run` marker above each."""
    lines = document.read_text(encoding="utf-8").splitlines()
    blocks, index = [], 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        indent, body = len(opening["indent"]), []
        end = index + 1
        while end < len(lines) and not FENCE.match(lines[end]):
            body.append(lines[end][indent:])
            end += 1
        marker = NOT_RUN.match(lines[index - 1]) if index else None
        language = opening["info"].split()[0] if opening["info"].strip() else ""
        blocks.append(CodeBlock(document, index + 1, language, "\n".join(body) + "\n", marker and marker["reason"]))
        index = end + 1
    return blocks


def python_blocks(document: Path) -> list[CodeBlock]:
    return [block for block in code_blocks(document) if block.language == "python"]


def _run_test_module(block: CodeBlock, pytester: pytest.Pytester) -> None:
    pytester.makepyfile(**{f"test_{block.document.stem.replace('-', '_')}_{block.line}": block.code})
    pytester.makeini("[pytest]\ntorchcheck = true\n")  # how the README turns the plugin on
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
        result = pytester.runpytest_inprocess(*INNER_PYTEST_ARGUMENTS)
    outcomes = result.parseoutcomes()
    assert result.ret == 0 and outcomes.get("passed"), f"{block.where}: the test module fails:\n" + "\n".join(
        result.outlines[-40:]
    )


def _run_page(blocks: list[CodeBlock], pytester: pytest.Pytester) -> None:
    namespace: dict[str, object] = {"__name__": "__docs__"}
    for block in blocks:
        if block.not_run_reason:
            continue
        if block.is_test_module:
            _run_test_module(block, pytester)
            continue
        try:
            exec(compile(block.code, block.where, "exec"), namespace)
        except Exception as error:
            raise AssertionError(f"{block.where} fails as written: {type(error).__name__}: {error}") from error


@pytest.mark.parametrize(
    "document",
    [document for document in DOCUMENTS if python_blocks(document)],
    ids=lambda document: document.name,
)
def test_every_python_block_of_the_page_runs_as_written(document: Path, pytester: pytest.Pytester) -> None:
    pytester.chdir()  # the blocks write their files (model.pt, ...) into a fresh directory
    with preserved_state():  # RNG states and torch settings the blocks change are put back
        _run_page(python_blocks(document), pytester)


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda document: document.name)
def test_a_not_run_marker_stands_above_a_python_block_and_gives_a_reason(document: Path) -> None:
    lines = document.read_text(encoding="utf-8").splitlines()
    marked = [number for number, line in enumerate(lines, 1) if "<!-- not run" in line]
    fenced = {block.line - 1 for block in python_blocks(document) if block.not_run_reason}
    assert set(marked) == fenced, f"{document.name}: a `not run` marker not directly above a ```python fence"
    for number in marked:
        reason = NOT_RUN.match(lines[number - 1])
        assert reason and len(reason["reason"].split()) >= 3, f"{document.name}:{number}: say why the block cannot run"


def test_the_reader_finds_the_code_blocks_of_a_page(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "Text\n\n```python\nx = 1\n```\n\n<!-- not run: a signature, not a call -->\n```python\nf(a, *, b=1)\n```\n\n"
        "- item:\n\n  ```console\n  $ torchcheck lint\n  ```\n",
        encoding="utf-8",
    )
    blocks = code_blocks(page)
    assert [(block.line, block.language, block.code, block.not_run_reason) for block in blocks] == [
        (3, "python", "x = 1\n", None),
        (8, "python", "f(a, *, b=1)\n", "a signature, not a call"),
        (14, "console", "$ torchcheck lint\n", None),
    ]


def test_a_page_whose_block_uses_a_file_it_never_wrote_fails_naming_the_block(
    tmp_path: Path, pytester: pytest.Pytester
) -> None:
    page = tmp_path / "page.md"
    page.write_text("```python\nimport torch\n```\n\n```python\ntorch.load('model.pt')\n```\n", encoding="utf-8")
    pytester.chdir()
    with pytest.raises(AssertionError, match=r"page\.md:5 fails as written: FileNotFoundError"):
        _run_page(python_blocks(page), pytester)


GITHUB_ACTIONS_PAGE = ROOT / "docs" / "github-actions.md"
RUN_TORCHCHECK_LINT = re.compile(r"^\s*(?:- )?run: (torchcheck lint [^#\n]*?)\s*(?:#.*)?$", re.MULTILINE)
LOSS_KEPT_WITH_GRAPH = "losses = []\nfor x in data:\n    loss = model(x).sum()\n    loss.backward()\n    losses.append(loss)\n"


def _workflow_lint_commands() -> dict[str, list[str]]:
    """The workflow's `torchcheck lint` commands, by output format."""
    (workflow,) = [block for block in code_blocks(GITHUB_ACTIONS_PAGE) if block.language == "yaml"]
    commands = [command.split() for command in RUN_TORCHCHECK_LINT.findall(workflow.code)]
    return {command[command.index("--output-format") + 1]: command for command in commands}


def test_the_github_actions_workflow_writes_sarif_and_annotations_as_described(tmp_path: Path) -> None:
    commands = _workflow_lint_commands()
    assert set(commands) == {"sarif", "github"}
    (tmp_path / "train.py").write_text(LOSS_KEPT_WITH_GRAPH, encoding="utf-8")
    runs = {
        output_format: subprocess.run(
            [sys.executable, "-m", "torchcheck", *command[1:], "--no-cache"], cwd=tmp_path, capture_output=True, text=True
        )
        for output_format, command in commands.items()
    }
    assert runs["sarif"].returncode == 0, runs["sarif"].stderr  # --exit-zero: the upload step still runs
    sarif = json.loads((tmp_path / "torchcheck.sarif").read_text(encoding="utf-8"))
    assert sarif["version"] == "2.1.0" and [result["ruleId"] for result in sarif["runs"][0]["results"]] == ["TCK101"]
    assert runs["github"].returncode == 1  # findings fail the job
    assert runs["github"].stdout.startswith("::error title=torchcheck (TCK101),file=")
