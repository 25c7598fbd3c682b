"""``torchcheck server``: findings as you type, over the Language Server Protocol (pygls).

A buffer is linted when it is opened and, while it is edited, once typing pauses for
``DEBOUNCE_SECONDS``; saving lints it only if a lint is pending. The command line's cache
answers a file opened unchanged.

Lints run in worker processes (:mod:`torchcheck.server.workers`) that the event loop only
awaits: the server answers the editor while a large buffer is linted, and a lint that
crashes its process becomes a TCK000 finding instead of a dead server. A document has at
most one lint under way; an edit abandons it, so only findings of the latest text are
published.

Findings that span files come from the project index (:mod:`torchcheck.server.project_state`),
built from the open documents' unsaved text and the files on disk: a lint of one document
re-resolves the cross-file findings of the open documents that read it, and publishes
theirs too when they change. So do closing, saving and ``workspace/didChangeWatchedFiles``.
A finding whose message names a place in another file carries it as related information,
so that the editor links to it.

Notebooks synchronised as notebook documents (``notebookDocument/*``) are linted as
``torchcheck lint`` lints an ``.ipynb`` file, and each finding is published on its cell.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path as uri_to_path
from pygls.workspace import TextDocument

import torchcheck
from torchcheck.lint.diagnostic import SYNTAX_ERROR_CODE, Diagnostic, RelatedPlace
from torchcheck.lint.noqa import add_noqa
from torchcheck.server import linting, protocol
from torchcheck.server.linting import LintedDocument
from torchcheck.server.project_state import ProjectIndexes, Published, file_key
from torchcheck.server.workers import JobFailed, PoolUnavailable, WorkerDied, WorkerPool

# Long enough that a burst of keystrokes costs one lint, short enough to feel immediate
# (a 1,000-line timm model takes about 0.23 s of CPU to lint; see bench/server_latency.py).
DEBOUNCE_SECONDS = 0.15
UNTITLED_NAME = "untitled.py"
PYTHON_SUFFIXES = (".py", ".pyi")
INTERNAL_ERROR = "torchcheck: internal error while linting {uri}; please report it:\n{details}"
CODE_ACTION_KINDS = [types.CodeActionKind.QuickFix, types.CodeActionKind.SourceFixAll, protocol.FIX_ALL_KIND]
NOTEBOOK_SYNC = types.NotebookDocumentSyncOptions(
    notebook_selector=[types.NotebookDocumentFilterWithCells(cells=[types.NotebookCellLanguage(language="python")])]
)
WATCHED_FILES = [types.FileSystemWatcher(glob_pattern="**/*.py")]
WATCH_REGISTRATION = "torchcheck-watched-files"

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Snapshot:
    """What a lint of a document (or notebook) reads: its text as the editor holds it now."""

    source: str
    path: Path
    version: int | None


class TorchcheckServer(LanguageServer):
    """The language server, with the latest result of every open document and notebook,
    and the cross-file findings that stand in each."""

    def __init__(self, pool: WorkerPool | None = None) -> None:
        super().__init__("torchcheck", torchcheck.__version__, notebook_document_sync=NOTEBOOK_SYNC)
        self.results: dict[str, LintedDocument] = {}
        self.cross_file: dict[str, tuple[Diagnostic, ...]] = {}
        self.projects = ProjectIndexes()
        self.pool = pool or WorkerPool()
        self._lints: dict[str, asyncio.Task[LintedDocument | None]] = {}
        # Documents whose findings read an open document still being linted: published once
        # that lint is in (until then they would show what the saved file, not the buffer, causes).
        self._waiting: set[str] = set()

    @property
    def encoding(self) -> str:
        return self.workspace.position_encoding or types.PositionEncodingKind.Utf16

    # ------------------------------------------------------------------ linting

    def snapshot(self, uri: str) -> Snapshot | None:
        """The text to lint for ``uri`` (a notebook: its cells as its ``.ipynb`` file holds
        them); None once it is closed, or when it is not Python."""
        notebook = self.workspace.get_notebook_document(notebook_uri=uri)
        if notebook is not None:
            cells = [self._cell(cell) for cell in notebook.cells]
            return Snapshot(linting.notebook_source(cells), uri_path(uri), notebook.version)
        if uri not in self.workspace.text_documents:
            return None
        document = self.workspace.get_text_document(uri)
        if not is_python(document):
            return None
        return Snapshot(document.source, document_path(document), document.version)

    def _cell(self, cell: types.NotebookCell) -> linting.Cell:
        document = self.workspace.get_text_document(cell.document)
        is_code = cell.kind == types.NotebookCellKind.Code and document.language_id in (None, "python")
        return linting.Cell(document.source, is_code)

    def lint_soon(self, uri: str, *, delay: float = 0.0, use_cache: bool = False) -> asyncio.Task[LintedDocument | None]:
        """Lint ``uri`` after ``delay`` seconds and publish its findings, abandoning the
        lint under way for an older text of it."""
        self.cancel_lint(uri)
        task = asyncio.ensure_future(self._lint(uri, delay, use_cache))
        self._lints[uri] = task
        task.add_done_callback(lambda done: self._lint_ended(uri, done))
        return task

    def _lint_ended(self, uri: str, task: asyncio.Task[LintedDocument | None]) -> None:
        if self._lints.get(uri) is task:
            del self._lints[uri]
            self._publish_updates([])  # a lint that failed or was abandoned holds back no document

    def cancel_lint(self, uri: str) -> None:
        task = self._lints.pop(uri, None)
        if task is not None:
            task.cancel()

    async def _lint(self, uri: str, delay: float, use_cache: bool) -> LintedDocument | None:
        if delay:
            await asyncio.sleep(delay)
        snapshot = self.snapshot(uri)
        if snapshot is None:
            return None
        started = time.perf_counter()
        try:
            result = await self.pool.run("lint", snapshot.source, snapshot.path, snapshot.version, use_cache=use_cache)
        except WorkerDied as died:
            logger.error("the lint of %s (version %s) %s", uri, snapshot.version, died)
            result = linting.unanalysable(snapshot.source, snapshot.path, snapshot.version, str(died))
        except (JobFailed, PoolUnavailable) as error:
            self._internal_error(uri, str(error))
            return None
        logger.debug("linted %s (version %s) in %.2f s", uri, snapshot.version, time.perf_counter() - started)
        return self._accept(uri, snapshot.path, result)

    def _accept(self, uri: str, path: Path, result: LintedDocument) -> LintedDocument | None:
        """Keep a lint's result, update the project index and publish what changed."""
        try:
            updates = self.projects.update(path, uri, result)
        except Exception:  # noqa: BLE001 - a bug in the index must not take the editor's server down
            self._internal_error(uri, traceback.format_exc())
            return None
        self.results[uri] = result
        self._publish_updates(updates, settled=uri)
        return result

    def _internal_error(self, uri: str, details: str) -> None:
        message = INTERNAL_ERROR.format(uri=uri, details=details)
        logger.error("%s", message)
        self.window_log_message(types.LogMessageParams(types.MessageType.Error, message))

    async def current_result(self, uri: str, *, use_cache: bool = False) -> LintedDocument | None:
        """The findings for the text the editor holds now: the last result if it is of
        that text, else those of the lint under way (or started now)."""
        while True:
            snapshot = self.snapshot(uri)
            if snapshot is None:
                return None
            result = self.results.get(uri)
            if result is not None and result.source == snapshot.source:
                return result
            task = self._lints.get(uri) or self.lint_soon(uri, use_cache=use_cache)
            await asyncio.wait({task})  # an edit may abandon it: then wait for the next one
            if not task.cancelled():
                return task.result()

    def lint_if_pending(self, uri: str) -> None:
        """Lint a saved document whose findings are not of its current text, unless that lint is under way."""
        snapshot = self.snapshot(uri)
        result = self.results.get(uri)
        if snapshot is not None and uri not in self._lints and (result is None or result.source != snapshot.source):
            self.lint_soon(uri, use_cache=True)

    async def stop(self) -> None:
        """Abandon every lint and stop the workers: the client asked the server to shut down."""
        for uri in list(self._lints):
            self.cancel_lint(uri)
        await self.pool.aclose()

    def close(self, uri: str, cleared: list[str]) -> None:
        """Forget a document (or notebook), clear the diagnostics of ``cleared`` and
        republish the documents whose cross-file findings read it."""
        self.cancel_lint(uri)
        self.results.pop(uri, None)
        self.cross_file.pop(uri, None)
        for cleared_uri in cleared:
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=cleared_uri, diagnostics=[]))
        self._publish_updates(self.projects.close(uri_path(uri)))

    def files_changed(self, changes: list[types.FileEvent]) -> None:
        """Files changed on disk: the open documents whose cross-file findings read them are resolved again."""
        for change in changes:
            if not change.uri.startswith("file:"):
                continue
            path = uri_path(change.uri)
            created_or_deleted = change.type in (types.FileChangeType.Created, types.FileChangeType.Deleted)
            self._publish_updates(self.projects.file_changed(path, created_or_deleted=created_or_deleted))

    def watch_files(self) -> None:
        """Ask the client to report changes to Python files made outside the editor, if it can."""
        workspace = self.client_capabilities.workspace
        watched = workspace.did_change_watched_files if workspace is not None else None
        if watched is None or not watched.dynamic_registration:
            return
        options = types.DidChangeWatchedFilesRegistrationOptions(watchers=WATCHED_FILES)
        registration = types.Registration(id=WATCH_REGISTRATION, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES, register_options=options)
        self.client_register_capability(types.RegistrationParams(registrations=[registration]))

    # ------------------------------------------------------------------ publishing

    def findings(self, uri: str) -> tuple[Diagnostic, ...]:
        """The document's own findings and the cross-file findings that stand in it."""
        result = self.results.get(uri)
        own = result.diagnostics if result is not None else ()
        return tuple(sorted((*own, *self.cross_file.get(uri, ())), key=lambda d: d.sort_key))

    def _publish_updates(self, updates: list[Published], settled: str | None = None) -> None:
        """Publish the documents whose findings changed, except those that read an open
        document whose lint is under way (``settled``'s has just come in); publish those
        waiting for a lint that is no longer under way."""
        for uri, standing in updates:
            self.cross_file[uri] = standing
            if uri in self.results:
                self._waiting.add(uri)
        for uri in sorted(self._waiting):
            if uri not in self.results:
                self._waiting.discard(uri)
            elif not self._reads_a_document_being_linted(uri, settled):
                self._waiting.discard(uri)
                self._publish(uri, self.results[uri])

    def _reads_a_document_being_linted(self, uri: str, settled: str | None) -> bool:
        reads = self.projects.reads(uri_path(uri))
        return any(file_key(uri_path(other)) in reads for other in self._lints if other not in (uri, settled))

    def _publish(self, uri: str, result: LintedDocument) -> None:
        notebook = self.workspace.get_notebook_document(notebook_uri=uri)
        if notebook is not None:
            self._publish_cells(notebook, self.findings(uri))
            return
        lines = protocol.split_lines(result.source)
        diagnostics = [self._lsp_diagnostic(d, lines) for d in self.findings(uri)]
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=result.version))

    def _publish_cells(self, notebook: types.NotebookDocument, findings: tuple[Diagnostic, ...]) -> None:
        """Each finding on its cell, counted within it; every cell is published, so fixed ones clear."""
        by_cell: dict[int, list[Diagnostic]] = {}
        for diagnostic in findings:
            by_cell.setdefault(diagnostic.cell or 1, []).append(diagnostic)  # a notebook that cannot be read: its first cell
        for number, cell in enumerate(notebook.cells, start=1):
            document = self.workspace.get_text_document(cell.document)
            lines = protocol.split_lines(document.source)
            diagnostics = [self._lsp_diagnostic(d, lines) for d in by_cell.get(number, ())]
            params = types.PublishDiagnosticsParams(uri=cell.document, diagnostics=diagnostics, version=document.version)
            self.text_document_publish_diagnostics(params)

    def _lsp_diagnostic(self, diagnostic: Diagnostic, lines: list[str]) -> types.Diagnostic:
        related = diagnostic.related
        location = self._related_location(related) if related is not None else None
        return protocol.to_lsp_diagnostic(diagnostic, lines, self.encoding, related=location)

    def _related_location(self, place: RelatedPlace) -> tuple[str, int]:
        """The URI and 0-based line of a place a message names: in a notebook open in the
        editor, the line of its cell's document; in a notebook that is not, its file."""
        path = Path(os.path.abspath(place.filename))  # findings name files relative to the working directory
        if place.cell is not None:
            cell_uri = self._cell_uri(path, place.cell)
            return (cell_uri, place.row - 1) if cell_uri is not None else (path.as_uri(), 0)
        return path.as_uri(), place.row - 1

    def _cell_uri(self, path: Path, number: int) -> str | None:
        for uri, notebook in self.workspace.notebook_documents.items():
            if uri_path(uri) == path and 0 < number <= len(notebook.cells):
                return notebook.cells[number - 1].document
        return None

    # ------------------------------------------------------------------ code actions

    async def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        notebook = self.workspace.get_notebook_document(cell_uri=uri)
        if notebook is not None:
            return await self._cell_actions(notebook, params)
        result = await self.current_result(uri)
        if result is None:
            return []
        actions: list[types.CodeAction] = []
        if _wants(params.context.only, types.CodeActionKind.QuickFix):
            lines = protocol.split_lines(result.source)
            for diagnostic in self.findings(uri):
                if _overlaps(protocol.to_range(diagnostic.location, diagnostic.end_location, lines, self.encoding), params.range):
                    actions.extend(self._quick_fixes(uri, diagnostic, result, lines))
        if _wants(params.context.only, protocol.FIX_ALL_KIND):
            actions.extend(await self._fix_all(uri, result))
        return actions

    async def _cell_actions(self, notebook: types.NotebookDocument, params: types.CodeActionParams) -> list[types.CodeAction]:
        """The ``# noqa`` action for the findings of one notebook cell. A rule's fix is not
        offered: its edits are made on the joined cells and may reach into other cells."""
        uri = params.text_document.uri
        result = await self.current_result(notebook.uri)
        if result is None or not _wants(params.context.only, types.CodeActionKind.QuickFix):
            return []
        number = next((number for number, cell in enumerate(notebook.cells, start=1) if cell.document == uri), None)
        if number is None or uri not in self.workspace.text_documents:
            return []  # the cell was removed while the notebook was linted
        document = self.workspace.get_text_document(uri)
        cell = LintedDocument(document.source, document.version, ())
        lines = protocol.split_lines(document.source)
        actions = []
        for diagnostic in self.findings(notebook.uri):
            if diagnostic.cell != number or diagnostic.code == SYNTAX_ERROR_CODE:
                continue
            lsp_diagnostic = self._lsp_diagnostic(diagnostic, lines)
            if not _overlaps(lsp_diagnostic.range, params.range):
                continue
            noqa_edit = self._noqa_edit(diagnostic, cell)
            if noqa_edit is not None:
                title = protocol.NOQA_TITLE.format(code=diagnostic.code)
                actions.append(_action(title, types.CodeActionKind.QuickFix, uri, [noqa_edit], [lsp_diagnostic]))
        return actions

    def _quick_fixes(self, uri: str, diagnostic: Diagnostic, result: LintedDocument, lines: list[str]) -> list[types.CodeAction]:
        if diagnostic.code == SYNTAX_ERROR_CODE:
            return []
        lsp_diagnostic = self._lsp_diagnostic(diagnostic, lines)
        actions = []
        fix = diagnostic.fix
        if fix is not None:
            edits = protocol.text_edits(fix.edits, lines, self.encoding)
            actions.append(_action(protocol.fix_title(fix), types.CodeActionKind.QuickFix, uri, edits, [lsp_diagnostic], preferred=fix.applicability == "safe"))
        noqa_edit = self._noqa_edit(diagnostic, result)
        if noqa_edit is not None:
            title = protocol.NOQA_TITLE.format(code=diagnostic.code)
            actions.append(_action(title, types.CodeActionKind.QuickFix, uri, [noqa_edit], [lsp_diagnostic]))
        return actions

    def _noqa_edit(self, diagnostic: Diagnostic, result: LintedDocument) -> types.TextEdit | None:
        source = result.source.encode("utf-8", errors="surrogatepass")
        suppressed, added = add_noqa(source, [(diagnostic.location.row, diagnostic.code)])
        if not added:
            return None
        return protocol.replacement_edit(result.source, suppressed.decode("utf-8", errors="surrogatepass"), self.encoding)

    async def _fix_all(self, uri: str, result: LintedDocument) -> list[types.CodeAction]:
        if not any(d.fix is not None and d.fix.applicability == "safe" for d in result.diagnostics):
            return []
        document = self.workspace.get_text_document(uri)
        try:
            fixed = await self.pool.run("fix_all", result.source, document_path(document))
        except (WorkerDied, JobFailed, PoolUnavailable) as error:
            logger.error("fixing %s failed: %s", uri, error)
            return []
        if fixed is None:
            return []
        edit = protocol.replacement_edit(result.source, fixed, self.encoding)
        return [_action(protocol.FIX_ALL_TITLE, protocol.FIX_ALL_KIND, uri, [edit], [])]


def is_python(document: TextDocument) -> bool:
    """Clients may send every file they open (a pyproject.toml, a README): only Python is linted."""
    return document.language_id == "python" or document.uri.endswith(PYTHON_SUFFIXES)


def document_path(document: TextDocument) -> Path:
    """Where the buffer lives (or would live: an unsaved buffer lints as a file in the working directory)."""
    return uri_path(document.uri)


def uri_path(uri: str) -> Path:
    """The file a URI names; a buffer that is no file lints as one in the working directory."""
    path = uri_to_path(uri) if uri.startswith("file:") else None
    return Path(path) if path else Path.cwd() / UNTITLED_NAME


def _wants(only: list[str] | None, kind: str) -> bool:
    """Whether a request limited to the kinds ``only`` asks for actions of ``kind`` (kinds are hierarchical)."""
    return only is None or any(kind == wanted or kind.startswith(f"{wanted}.") for wanted in only)


def _overlaps(finding: types.Range, requested: types.Range) -> bool:
    def key(position: types.Position) -> tuple[int, int]:
        return (position.line, position.character)

    return key(finding.start) <= key(requested.end) and key(requested.start) <= key(finding.end)


def _action(title: str, kind: str, uri: str, edits: list[types.TextEdit], diagnostics: list[types.Diagnostic], preferred: bool = False) -> types.CodeAction:
    return types.CodeAction(
        title=title,
        kind=kind,
        diagnostics=diagnostics or None,
        edit=types.WorkspaceEdit(changes={uri: edits}),
        is_preferred=preferred or None,
    )


def create_server(pool: WorkerPool | None = None) -> TorchcheckServer:
    server = TorchcheckServer(pool)

    @server.feature(types.INITIALIZED)
    def initialized(ls: TorchcheckServer, params: types.InitializedParams) -> None:
        ls.pool.start()  # the workers load the rules while the editor opens its files
        ls.watch_files()

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: TorchcheckServer, params: None) -> None:
        await ls.stop()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: TorchcheckServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.lint_soon(params.text_document.uri, use_cache=True)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: TorchcheckServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.lint_soon(params.text_document.uri, delay=DEBOUNCE_SECONDS)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: TorchcheckServer, params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.lint_if_pending(uri)
        ls.files_changed([types.FileEvent(uri=uri, type=types.FileChangeType.Changed)])

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: TorchcheckServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.close(params.text_document.uri, [params.text_document.uri])

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: TorchcheckServer, params: types.DidChangeWatchedFilesParams) -> None:
        ls.files_changed(params.changes)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def did_open_notebook(ls: TorchcheckServer, params: types.DidOpenNotebookDocumentParams) -> None:
        ls.lint_soon(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def did_change_notebook(ls: TorchcheckServer, params: types.DidChangeNotebookDocumentParams) -> None:
        ls.lint_soon(params.notebook_document.uri, delay=DEBOUNCE_SECONDS)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def did_close_notebook(ls: TorchcheckServer, params: types.DidCloseNotebookDocumentParams) -> None:
        ls.close(params.notebook_document.uri, [cell.uri for cell in params.cell_text_documents])

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=CODE_ACTION_KINDS))
    async def code_action(ls: TorchcheckServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        return await ls.code_actions(params)

    return server
