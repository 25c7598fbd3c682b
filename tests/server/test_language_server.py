"""The language server driven over stdio by a real LSP client, as an editor would."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pygls")

from lsprotocol import types  # noqa: E402

from tests.server.editor import Editor, EditorSession, apply, drive, write  # noqa: E402
from torchcheck.lint.diagnostic import DOCS_URL  # noqa: E402

# An emoji (two UTF-16 code units, one code point) sits before the finding on its line.
FORWARD_CALLED = 'import torch\n\nmodel = torch.nn.Linear(2, 2)\nx = torch.ones(2)\nlabel = "😀"; out = model.forward(x)\n'
FORWARD_FIXED = 'import torch\n\nmodel = torch.nn.Linear(2, 2)\nx = torch.ones(2)\nlabel = "😀"; out = model(x)\n'
# TCK101's fix is unsafe; TCK105's is safe.
TWO_FINDINGS = (
    "import torch\n\nmodel = torch.nn.Linear(2, 2)\nlosses = []\n"
    "for x in torch.ones(3, 2):\n    loss = model.forward(x).sum()\n    loss.backward()\n    losses.append(loss)\n"
)
START = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))


def test_an_opened_document_gets_a_diagnostic_with_utf16_range_code_and_rule_link(tmp_path: Path, session: EditorSession):
    async def scenario(editor: Editor) -> None:
        uri = write(tmp_path / "train.py", FORWARD_CALLED)
        editor.open(uri, FORWARD_CALLED)
        [diagnostic] = await editor.published(uri)
        assert diagnostic.code == "TCK105"
        assert diagnostic.source == "torchcheck"
        assert diagnostic.severity == types.DiagnosticSeverity.Warning
        assert diagnostic.code_description is not None and diagnostic.code_description.href == DOCS_URL.format(code="TCK105")
        # `model` starts at code point 19 of the line but UTF-16 unit 20: the emoji counts twice.
        assert (diagnostic.range.start.line, diagnostic.range.start.character) == (4, 20)
        assert (diagnostic.range.end.line, diagnostic.range.end.character) == (4, 36)

    session.run(scenario)


def test_a_client_that_counts_in_utf8_gets_columns_in_bytes(tmp_path: Path):
    async def scenario(editor: Editor) -> None:
        uri = write(tmp_path / "train.py", FORWARD_CALLED)
        editor.open(uri, FORWARD_CALLED)
        [diagnostic] = await editor.published(uri)
        assert (diagnostic.range.start.line, diagnostic.range.start.character) == (4, 22)  # the emoji is 4 bytes

    general = types.GeneralClientCapabilities(position_encodings=[types.PositionEncodingKind.Utf8])
    drive(scenario, types.ClientCapabilities(general=general))


def test_editing_the_document_updates_its_diagnostics(tmp_path: Path, session: EditorSession):
    async def scenario(editor: Editor) -> None:
        uri = write(tmp_path / "train.py", FORWARD_CALLED)
        editor.open(uri, FORWARD_CALLED)
        assert [d.code for d in await editor.published(uri)] == ["TCK105"]
        editor.replace_text(uri, FORWARD_FIXED, version=2)
        assert await editor.published(uri) == []
        editor.replace_text(uri, TWO_FINDINGS, version=3)
        assert sorted(d.code for d in await editor.published(uri)) == ["TCK101", "TCK105"]

    session.run(scenario)


def test_the_quick_fix_edit_fixes_the_finding_after_an_emoji(tmp_path: Path, session: EditorSession):
    async def scenario(editor: Editor) -> None:
        uri = write(tmp_path / "train.py", FORWARD_CALLED)
        editor.open(uri, FORWARD_CALLED)
        [diagnostic] = await editor.published(uri)
        actions = await editor.actions(uri, diagnostic.range, only=[types.CodeActionKind.QuickFix])
        [fix] = [action for action in actions if action.is_preferred]
        assert fix.title == "Call the module"
        assert apply(FORWARD_CALLED, fix, uri) == FORWARD_FIXED

    session.run(scenario)


def test_an_unsafe_fix_is_offered_marked_as_unsafe_and_not_preferred(tmp_path: Path, session: EditorSession):
    async def scenario(editor: Editor) -> None:
        uri = write(tmp_path / "train.py", TWO_FINDINGS)
        editor.open(uri, TWO_FINDINGS)
        [kept_loss] = [d for d in await editor.published(uri) if d.code == "TCK101"]
        actions = await editor.actions(uri, kept_loss.range, only=[types.CodeActionKind.QuickFix])
        [unsafe] = [action for action in actions if "unsafe" in action.title]
        assert unsafe.title.startswith("Store `.item()`")
        assert not unsafe.is_preferred
        assert "    losses.append(loss.item())\n" in apply(TWO_FINDINGS, unsafe, uri)

    session.run(scenario)


def test_the_noqa_action_silences_the_finding_on_its_line(tmp_path: Path, session: EditorSession):
    async def scenario(editor: Editor) -> None:
        uri = write(tmp_path / "train.py", FORWARD_CALLED)
        editor.open(uri, FORWARD_CALLED)
        [diagnostic] = await editor.published(uri)
        actions = await editor.actions(uri, diagnostic.range)
        [noqa] = [action for action in actions if "noqa" in action.title]
        suppressed = apply(FORWARD_CALLED, noqa, uri)
        assert suppressed.splitlines()[4] == 'label = "😀"; out = model.forward(x)  # noqa: TCK105'
        editor.replace_text(uri, suppressed, version=2)
        assert await editor.published(uri) == []

    session.run(scenario)


def test_fix_all_applies_every_safe_fix_and_leaves_the_unsafe_one(tmp_path: Path, session: EditorSession):
    async def scenario(editor: Editor) -> None:
        uri = write(tmp_path / "train.py", TWO_FINDINGS)
        editor.open(uri, TWO_FINDINGS)
        await editor.published(uri)
        [fix_all] = await editor.actions(uri, START, only=[types.CodeActionKind.SourceFixAll])
        assert fix_all.kind == "source.fixAll.torchcheck"
        fixed = apply(TWO_FINDINGS, fix_all, uri)
        assert "loss = model(x).sum()" in fixed and "losses.append(loss)\n" in fixed
        editor.replace_text(uri, fixed, version=2)
        assert [d.code for d in await editor.published(uri)] == ["TCK101"]

    session.run(scenario)


def test_a_syntax_error_is_a_tck000_diagnostic_and_the_server_keeps_serving(tmp_path: Path, session: EditorSession):
    broken = "import torch\n\nfor batch in :\n    pass\n"

    async def scenario(editor: Editor) -> None:
        uri = write(tmp_path / "train.py", broken)
        editor.open(uri, broken)
        [problem] = await editor.published(uri)
        assert problem.code == "TCK000" and problem.severity == types.DiagnosticSeverity.Error
        assert problem.code_description is None
        assert problem.range.start.line == 2
        assert await editor.actions(uri, problem.range) == []
        editor.replace_text(uri, FORWARD_CALLED, version=2)
        assert [d.code for d in await editor.published(uri)] == ["TCK105"]

    session.run(scenario)


def test_a_file_under_an_excluded_path_gets_no_diagnostics_with_force_exclude(tmp_path: Path, session: EditorSession):
    async def scenario(editor: Editor) -> None:
        write(tmp_path / "pyproject.toml", '[tool.torchcheck]\nextend-exclude = ["generated"]\nforce-exclude = true\n')
        excluded = write(tmp_path / "generated" / "train.py", FORWARD_CALLED)
        linted = write(tmp_path / "src" / "train.py", FORWARD_CALLED)
        editor.open(excluded, FORWARD_CALLED)
        editor.open(linted, FORWARD_CALLED)
        assert [d.code for d in await editor.published(linted)] == ["TCK105"]
        assert await editor.published(excluded) == []

    session.run(scenario)


def test_the_project_config_above_the_document_selects_and_ignores_rules(tmp_path: Path, session: EditorSession):
    async def scenario(editor: Editor) -> None:
        write(tmp_path / "pyproject.toml", '[tool.torchcheck]\nper-file-ignores = { "scripts/*" = ["TCK105"] }\nignore = ["TCK101"]\n')
        script = write(tmp_path / "scripts" / "train.py", TWO_FINDINGS)
        module = write(tmp_path / "lib" / "train.py", TWO_FINDINGS)
        editor.open(script, TWO_FINDINGS)
        editor.open(module, TWO_FINDINGS)
        assert [d.code for d in await editor.published(module)] == ["TCK105"]
        assert await editor.published(script) == []

    session.run(scenario)


def test_a_document_that_is_not_python_is_not_linted(tmp_path: Path, session: EditorSession):
    async def scenario(editor: Editor) -> None:
        notes = write(tmp_path / "notes.md", FORWARD_CALLED)
        editor.open(notes, FORWARD_CALLED, language_id="markdown")
        code = write(tmp_path / "train.py", FORWARD_CALLED)
        editor.open(code, FORWARD_CALLED)
        await editor.published(code)  # the server answers in order: notes.md would have come first
        assert notes not in editor.diagnostics

    session.run(scenario)


def test_closing_a_document_clears_its_diagnostics(tmp_path: Path, session: EditorSession):
    async def scenario(editor: Editor) -> None:
        uri = write(tmp_path / "train.py", FORWARD_CALLED)
        editor.open(uri, FORWARD_CALLED)
        assert await editor.published(uri) != []
        editor.forget(uri)
        editor.close(uri)
        assert await editor.published(uri) == []

    session.run(scenario)
