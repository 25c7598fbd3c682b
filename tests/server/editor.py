"""A real LSP client (pygls's) that starts ``torchcheck server`` over stdio and drives it as
an editor would. Plain asyncio, no pytest plugin: tests call :func:`drive` for a server of
their own, or share one per test module through :class:`EditorSession`."""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types
from pygls.lsp.client import LanguageClient

SERVER_COMMAND = (sys.executable, "-m", "torchcheck", "server")
TIMEOUT_SECONDS = 60
T = TypeVar("T")
Scenario = Callable[["Editor"], Awaitable[None]]


class Editor:
    """Opens and edits documents, collects what the server publishes, asks for code actions."""

    def __init__(self, capabilities: types.ClientCapabilities, command: tuple[str, ...] = SERVER_COMMAND) -> None:
        self.capabilities = capabilities
        self.command = command
        self.diagnostics: dict[str, list[types.Diagnostic]] = {}
        self.versions: dict[str, list[int | None]] = {}  # every version published, per URI
        self.client = LanguageClient("torchcheck-tests", "1")
        self._open_documents: set[str] = set()
        self._open_notebooks: dict[str, list[str]] = {}

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: types.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = list(params.diagnostics)
            self.versions.setdefault(params.uri, []).append(params.version)

    async def start(self) -> None:
        await self.client.start_io(*self.command)
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
        self._open_documents.add(uri)

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
        self._open_notebooks[uri] = cell_uris
        return cell_uris

    def close_notebook(self, uri: str) -> None:
        cells = [types.TextDocumentIdentifier(uri=cell_uri) for cell_uri in self._open_notebooks.pop(uri, [])]
        notebook = types.NotebookDocumentIdentifier(uri=uri)
        self.client.notebook_document_did_close(types.DidCloseNotebookDocumentParams(notebook_document=notebook, cell_text_documents=cells))

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
        self._open_documents.discard(uri)
        self.client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))

    def close_everything(self) -> None:
        """Close what the scenario opened, so that the next scenario on this server starts afresh."""
        for uri in list(self._open_documents):
            self.close(uri)
        for uri in list(self._open_notebooks):
            self.close_notebook(uri)
        self.diagnostics.clear()
        self.versions.clear()

    def forget(self, *uris: str) -> None:
        """Drop what was published for ``uris``, to wait for what the server publishes next."""
        for uri in uris:
            self.diagnostics.pop(uri, None)

    @property
    def server_pid(self) -> int:
        server = self.client._server  # pygls keeps the process it started here
        assert server is not None
        return server.pid

    def worker_pids(self) -> list[int]:
        """The server's child processes: its lint workers (Linux)."""
        children = Path(f"/proc/{self.server_pid}/task/{self.server_pid}/children").read_text()
        return [int(pid) for pid in children.split()]

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


def drive(scenario: Scenario, capabilities: types.ClientCapabilities | None = None, command: tuple[str, ...] = SERVER_COMMAND) -> None:
    """Start a server, run ``scenario`` against it, and shut it down (also when the scenario fails)."""

    async def session() -> None:
        editor = Editor(capabilities or types.ClientCapabilities(), command)
        await editor.start()
        try:
            await scenario(editor)
        finally:
            await editor.stop()

    asyncio.run(session())


class EditorSession:
    """One server for many scenarios (a test module's), so that each test does not pay for
    starting one: the client lives on an event loop in a thread of its own, and each
    scenario closes what it opened."""

    def __init__(self, capabilities: types.ClientCapabilities | None = None) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="lsp-client", daemon=True)
        self._thread.start()
        self.editor = self._call(self._start(capabilities or types.ClientCapabilities()))

    @staticmethod
    async def _start(capabilities: types.ClientCapabilities) -> Editor:
        editor = Editor(capabilities)
        await editor.start()
        return editor

    def _call(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def run(self, scenario: Scenario) -> None:
        """Run ``scenario`` against the shared server."""

        async def isolated() -> None:
            try:
                await scenario(self.editor)
            finally:
                self.editor.close_everything()

        self._call(isolated())

    def stop(self) -> None:
        try:
            self._call(self.editor.stop())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(TIMEOUT_SECONDS)
            self._loop.close()


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
