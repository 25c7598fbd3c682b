"""The language server driven over stdio by a real LSP client (pytest-lsp), as an editor would."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

from torchcheck.lint.diagnostic import DOCS_URL  # noqa: E402

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "torchcheck", "server"])
TIMEOUT_SECONDS = 30

# An emoji (two UTF-16 code units, one code point) sits before the finding on its line.
FORWARD_CALLED = 'import torch\n\nmodel = torch.nn.Linear(2, 2)\nx = torch.ones(2)\nlabel = "😀"; out = model.forward(x)\n'
FORWARD_FIXED = 'import torch\n\nmodel = torch.nn.Linear(2, 2)\nx = torch.ones(2)\nlabel = "😀"; out = model(x)\n'
# TCK101's fix is unsafe; TCK105's is safe.
TWO_FINDINGS = (
    "import torch\n\nmodel = torch.nn.Linear(2, 2)\nlosses = []\n"
    "for x in torch.ones(3, 2):\n    loss = model.forward(x).sum()\n    loss.backward()\n    losses.append(loss)\n"
)


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(types.InitializeParams(capabilities=types.ClientCapabilities()))
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER)
async def utf8_client(lsp_client: LanguageClient):
    general = types.GeneralClientCapabilities(position_encodings=[types.PositionEncodingKind.Utf8])
    await lsp_client.initialize_session(types.InitializeParams(capabilities=types.ClientCapabilities(general=general)))
    yield
    await lsp_client.shutdown_session()


def _write(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="")
    return path.as_uri()


def _open(client: LanguageClient, uri: str, text: str) -> None:
    client.diagnostics.pop(uri, None)
    item = types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))


def _replace_text(client: LanguageClient, uri: str, text: str, version: int) -> None:
    client.diagnostics.pop(uri, None)
    document = types.VersionedTextDocumentIdentifier(uri=uri, version=version)
    change = types.TextDocumentContentChangeWholeDocument(text=text)
    client.text_document_did_change(types.DidChangeTextDocumentParams(text_document=document, content_changes=[change]))


async def _published(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    """The diagnostics the server publishes next for ``uri`` (after _open or _replace_text)."""
    async with asyncio.timeout(TIMEOUT_SECONDS):
        while uri not in client.diagnostics:
            await asyncio.sleep(0.02)
    return list(client.diagnostics[uri])


async def _actions(client: LanguageClient, uri: str, where: types.Range, only: list[str] | None = None) -> list[types.CodeAction]:
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=where,
        context=types.CodeActionContext(diagnostics=[], only=only),
    )
    return await client.text_document_code_action_async(params) or []


def _offset(lines: list[str], position: types.Position) -> int:
    """A position counted in UTF-16 code units, as a string offset into the joined lines."""
    line = lines[position.line] if position.line < len(lines) else ""
    prefix = line.encode("utf-16-le")[: 2 * position.character].decode("utf-16-le")
    return sum(len(text) for text in lines[: position.line]) + len(prefix)


def _apply(text: str, action: types.CodeAction, uri: str) -> str:
    assert action.edit is not None and action.edit.changes is not None
    lines = text.splitlines(keepends=True)
    edits = sorted(action.edit.changes[uri], key=lambda e: (e.range.start.line, e.range.start.character), reverse=True)
    for edit in edits:
        text = text[: _offset(lines, edit.range.start)] + edit.new_text + text[_offset(lines, edit.range.end) :]
    return text


@pytest.mark.asyncio
async def test_an_opened_document_gets_a_diagnostic_with_utf16_range_code_and_rule_link(client: LanguageClient, tmp_path: Path):
    uri = _write(tmp_path / "train.py", FORWARD_CALLED)
    _open(client, uri, FORWARD_CALLED)
    [diagnostic] = await _published(client, uri)
    assert diagnostic.code == "TCK105"
    assert diagnostic.source == "torchcheck"
    assert diagnostic.severity == types.DiagnosticSeverity.Warning
    assert diagnostic.code_description is not None and diagnostic.code_description.href == DOCS_URL.format(code="TCK105")
    # `model` starts at code point 19 of the line but UTF-16 unit 20: the emoji counts twice.
    assert (diagnostic.range.start.line, diagnostic.range.start.character) == (4, 20)
    assert (diagnostic.range.end.line, diagnostic.range.end.character) == (4, 36)


@pytest.mark.asyncio
async def test_a_client_that_counts_in_utf8_gets_columns_in_bytes(utf8_client: LanguageClient, tmp_path: Path):
    uri = _write(tmp_path / "train.py", FORWARD_CALLED)
    _open(utf8_client, uri, FORWARD_CALLED)
    [diagnostic] = await _published(utf8_client, uri)
    assert (diagnostic.range.start.line, diagnostic.range.start.character) == (4, 22)  # the emoji is 4 bytes


@pytest.mark.asyncio
async def test_editing_the_document_updates_its_diagnostics(client: LanguageClient, tmp_path: Path):
    uri = _write(tmp_path / "train.py", FORWARD_CALLED)
    _open(client, uri, FORWARD_CALLED)
    assert [d.code for d in await _published(client, uri)] == ["TCK105"]
    _replace_text(client, uri, FORWARD_FIXED, version=2)
    assert await _published(client, uri) == []
    _replace_text(client, uri, TWO_FINDINGS, version=3)
    assert sorted(d.code for d in await _published(client, uri)) == ["TCK101", "TCK105"]


@pytest.mark.asyncio
async def test_the_quick_fix_edit_fixes_the_finding_after_an_emoji(client: LanguageClient, tmp_path: Path):
    uri = _write(tmp_path / "train.py", FORWARD_CALLED)
    _open(client, uri, FORWARD_CALLED)
    [diagnostic] = await _published(client, uri)
    actions = await _actions(client, uri, diagnostic.range, only=[types.CodeActionKind.QuickFix])
    [fix] = [action for action in actions if action.is_preferred]
    assert fix.title == "Call the module"
    assert _apply(FORWARD_CALLED, fix, uri) == FORWARD_FIXED


@pytest.mark.asyncio
async def test_an_unsafe_fix_is_offered_marked_as_unsafe_and_not_preferred(client: LanguageClient, tmp_path: Path):
    uri = _write(tmp_path / "train.py", TWO_FINDINGS)
    _open(client, uri, TWO_FINDINGS)
    [kept_loss] = [d for d in await _published(client, uri) if d.code == "TCK101"]
    actions = await _actions(client, uri, kept_loss.range, only=[types.CodeActionKind.QuickFix])
    [unsafe] = [action for action in actions if "unsafe" in action.title]
    assert unsafe.title.startswith("Store `.item()`")
    assert not unsafe.is_preferred
    assert "    losses.append(loss.item())\n" in _apply(TWO_FINDINGS, unsafe, uri)


@pytest.mark.asyncio
async def test_the_noqa_action_silences_the_finding_on_its_line(client: LanguageClient, tmp_path: Path):
    uri = _write(tmp_path / "train.py", FORWARD_CALLED)
    _open(client, uri, FORWARD_CALLED)
    [diagnostic] = await _published(client, uri)
    actions = await _actions(client, uri, diagnostic.range)
    [noqa] = [action for action in actions if "noqa" in action.title]
    suppressed = _apply(FORWARD_CALLED, noqa, uri)
    assert suppressed.splitlines()[4] == 'label = "😀"; out = model.forward(x)  # noqa: TCK105'
    _replace_text(client, uri, suppressed, version=2)
    assert await _published(client, uri) == []


@pytest.mark.asyncio
async def test_fix_all_applies_every_safe_fix_and_leaves_the_unsafe_one(client: LanguageClient, tmp_path: Path):
    uri = _write(tmp_path / "train.py", TWO_FINDINGS)
    _open(client, uri, TWO_FINDINGS)
    await _published(client, uri)
    everywhere = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))
    [fix_all] = await _actions(client, uri, everywhere, only=[types.CodeActionKind.SourceFixAll])
    assert fix_all.kind == "source.fixAll.torchcheck"
    fixed = _apply(TWO_FINDINGS, fix_all, uri)
    assert "loss = model(x).sum()" in fixed and "losses.append(loss)\n" in fixed
    _replace_text(client, uri, fixed, version=2)
    assert [d.code for d in await _published(client, uri)] == ["TCK101"]


@pytest.mark.asyncio
async def test_a_syntax_error_is_a_tck000_diagnostic_and_the_server_keeps_serving(client: LanguageClient, tmp_path: Path):
    broken = "import torch\n\nfor batch in :\n    pass\n"
    uri = _write(tmp_path / "train.py", broken)
    _open(client, uri, broken)
    [problem] = await _published(client, uri)
    assert problem.code == "TCK000" and problem.severity == types.DiagnosticSeverity.Error
    assert problem.code_description is None
    assert problem.range.start.line == 2
    _replace_text(client, uri, FORWARD_CALLED, version=2)
    assert [d.code for d in await _published(client, uri)] == ["TCK105"]


@pytest.mark.asyncio
async def test_a_file_under_an_excluded_path_gets_no_diagnostics_with_force_exclude(client: LanguageClient, tmp_path: Path):
    _write(tmp_path / "pyproject.toml", '[tool.torchcheck]\nextend-exclude = ["generated"]\nforce-exclude = true\n')
    excluded = _write(tmp_path / "generated" / "train.py", FORWARD_CALLED)
    linted = _write(tmp_path / "src" / "train.py", FORWARD_CALLED)
    _open(client, excluded, FORWARD_CALLED)
    _open(client, linted, FORWARD_CALLED)
    assert [d.code for d in await _published(client, linted)] == ["TCK105"]
    assert await _published(client, excluded) == []


@pytest.mark.asyncio
async def test_the_project_config_above_the_document_selects_and_ignores_rules(client: LanguageClient, tmp_path: Path):
    _write(tmp_path / "pyproject.toml", '[tool.torchcheck]\nper-file-ignores = { "scripts/*" = ["TCK105"] }\nignore = ["TCK101"]\n')
    script = _write(tmp_path / "scripts" / "train.py", TWO_FINDINGS)
    module = _write(tmp_path / "lib" / "train.py", TWO_FINDINGS)
    _open(client, script, TWO_FINDINGS)
    _open(client, module, TWO_FINDINGS)
    assert [d.code for d in await _published(client, module)] == ["TCK105"]
    assert await _published(client, script) == []


@pytest.mark.asyncio
async def test_a_document_that_is_not_python_is_not_linted(client: LanguageClient, tmp_path: Path):
    notes = _write(tmp_path / "notes.md", FORWARD_CALLED)
    item = types.TextDocumentItem(uri=notes, language_id="markdown", version=1, text=FORWARD_CALLED)
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
    code = _write(tmp_path / "train.py", FORWARD_CALLED)
    _open(client, code, FORWARD_CALLED)
    await _published(client, code)  # the server answers in order: notes.md would have come first
    assert notes not in client.diagnostics
