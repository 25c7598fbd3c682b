"""A real LSP client (pygls's) that starts ``torchcheck server`` over stdio and drives it as
an editor would. Plain asyncio, no pytest plugin: tests call :func:`drive`."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

SERVER_COMMAND = (sys.executable, "-m", "torchcheck", "server")
TIMEOUT_SECONDS = 60


class Editor:
    """Opens and edits documents, collects what the server publishes, asks for code actions."""

    def __init__(self, capabilities: types.ClientCapabilities) -> None:
        self.capabilities = capabilities
        self.diagnostics: dict[str, list[types.Diagnostic]] = {}
        self.client = LanguageClient("torchcheck-tests", "1")

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: types.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = list(params.diagnostics)

    async def start(self) -> None:
        await self.client.start_io(*SERVER_COMMAND)
        await self.client.initialize_async(types.InitializeParams(capabilities=self.capabilities))
        self.client.initialized(types.InitializedParams())

    async def stop(self) -> None:
        await asyncio.wait_for(self.client.shutdown_async(None), TIMEOUT_SECONDS)
        self.client.exit(None)
        await self.client.stop()

    def open(self, uri: str, text: str, language_id: str = "python") -> None:
        self.diagnostics.pop(uri, None)
        item = types.TextDocumentItem(uri=uri, language_id=language_id, version=1, text=text)
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))

    def replace_text(self, uri: str, text: str, version: int) -> None:
        self.diagnostics.pop(uri, None)
        document = types.VersionedTextDocumentIdentifier(uri=uri, version=version)
        change = types.TextDocumentContentChangeWholeDocument(text=text)
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(text_document=document, content_changes=[change]))

    def open_notebook(self, uri: str, cells: list[tuple[str, str]]) -> list[str]:
        """Open a notebook of ``(kind, text)`` cells (kind ``code`` or ``markdown``) as
        notebook-synchronising editors do; the URIs of its cells."""
        cell_uris = [f"vscode-notebook-cell:{uri.removeprefix('file:')}#C{number}" for number in range(1, len(cells) + 1)]
        for cell_uri in cell_uris:
            self.diagnostics.pop(cell_uri, None)
        kinds = {"code": types.NotebookCellKind.Code, "markdown": types.NotebookCellKind.Markup}
        notebook = types.NotebookDocument(
            uri=uri,
            notebook_type="jupyter-notebook",
            version=1,
            cells=[types.NotebookCell(kind=kinds[kind], document=cell_uri) for (kind, _), cell_uri in zip(cells, cell_uris)],
        )
        documents = [
            types.TextDocumentItem(uri=cell_uri, language_id="python" if kind == "code" else "markdown", version=1, text=text)
            for (kind, text), cell_uri in zip(cells, cell_uris)
        ]
        self.client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(notebook_document=notebook, cell_text_documents=documents))
        return cell_uris

    def replace_cell_text(self, notebook_uri: str, cell_uri: str, text: str, version: int) -> None:
        self.diagnostics.pop(cell_uri, None)
        document = types.VersionedTextDocumentIdentifier(uri=cell_uri, version=version)
        change = types.TextDocumentContentChangeWholeDocument(text=text)
        cells = types.NotebookDocumentCellChanges(text_content=[types.NotebookDocumentCellContentChanges(document=document, changes=[change])])
        params = types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(uri=notebook_uri, version=version),
            change=types.NotebookDocumentChangeEvent(cells=cells),
        )
        self.client.notebook_document_did_change(params)

    def close(self, uri: str) -> None:
        self.client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))

    def forget(self, *uris: str) -> None:
        """Drop what was published for ``uris``, to wait for what the server publishes next."""
        for uri in uris:
            self.diagnostics.pop(uri, None)

    def file_changed_on_disk(self, uri: str) -> None:
        change = types.FileEvent(uri=uri, type=types.FileChangeType.Changed)
        self.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[change]))

    async def published(self, uri: str) -> list[types.Diagnostic]:
        """The diagnostics the server publishes next for ``uri`` (after open or replace_text)."""

        async def arrival() -> None:
            while uri not in self.diagnostics:
                await asyncio.sleep(0.02)

        await asyncio.wait_for(arrival(), TIMEOUT_SECONDS)
        return self.diagnostics[uri]

    async def actions(self, uri: str, where: types.Range, only: list[str] | None = None) -> list[types.CodeAction]:
        params = types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=where,
            context=types.CodeActionContext(diagnostics=[], only=only),
        )
        answer = await asyncio.wait_for(self.client.text_document_code_action_async(params), TIMEOUT_SECONDS)
        return [action for action in answer or [] if isinstance(action, types.CodeAction)]


def drive(scenario: Callable[[Editor], Awaitable[None]], capabilities: types.ClientCapabilities | None = None) -> None:
    """Start a server, run ``scenario`` against it, and shut it down (also when the scenario fails)."""

    async def session() -> None:
        editor = Editor(capabilities or types.ClientCapabilities())
        await editor.start()
        try:
            await scenario(editor)
        finally:
            await editor.stop()

    asyncio.run(session())


def write(path: Path, text: str) -> str:
    """Create ``path`` holding ``text`` and return its URI."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="")
    return path.as_uri()


def apply(text: str, action: types.CodeAction, uri: str) -> str:
    """``text`` with the action's edits made, positions counted in UTF-16 code units."""
    assert action.edit is not None and action.edit.changes is not None
    lines = text.splitlines(keepends=True)

    def offset(position: types.Position) -> int:
        line = lines[position.line] if position.line < len(lines) else ""
        prefix = line.encode("utf-16-le")[: 2 * position.character].decode("utf-16-le")
        return sum(len(text) for text in lines[: position.line]) + len(prefix)

    edits = sorted(action.edit.changes[uri], key=lambda e: (e.range.start.line, e.range.start.character), reverse=True)
    for edit in edits:
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text
