"""``torchcheck server``: findings as you type, over the Language Server Protocol (pygls).

A buffer is linted when it is opened and, while it is edited, once typing pauses for
``DEBOUNCE_SECONDS``; saving lints it only if a lint is pending. The command line's cache
answers a file opened unchanged.

Every open document's latest result is kept with the project root its settings came from
(``TorchcheckServer.results``). That map is where the project index plugs in: once
linting a file also yields its export summary and deferred cross-file findings, the index
of a root is built from its open documents (their unsaved text) and the files on disk, and
a change to one document re-resolves the deferred findings of the others in its root.
"""

from __future__ import annotations

import asyncio
import traceback
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument

import torchcheck
from torchcheck.lint.diagnostic import SYNTAX_ERROR_CODE, Diagnostic
from torchcheck.lint.noqa import add_noqa
from torchcheck.server import linting, protocol
from torchcheck.server.linting import LintedDocument

# Long enough that a burst of keystrokes costs one lint, short enough to feel immediate
# (a 1,000-line timm model takes about 0.23 s of CPU to lint; see bench/server_latency.py).
DEBOUNCE_SECONDS = 0.15
UNTITLED_NAME = "untitled.py"
PYTHON_SUFFIXES = (".py", ".pyi")
INTERNAL_ERROR = "torchcheck: internal error while linting {uri}; please report it:\n{details}"
CODE_ACTION_KINDS = [types.CodeActionKind.QuickFix, types.CodeActionKind.SourceFixAll, protocol.FIX_ALL_KIND]


class TorchcheckServer(LanguageServer):
    """The language server, with the latest result of every open document."""

    def __init__(self) -> None:
        super().__init__("torchcheck", torchcheck.__version__)
        self.results: dict[str, LintedDocument] = {}
        self._scheduled: dict[str, asyncio.TimerHandle] = {}

    @property
    def encoding(self) -> str:
        return self.workspace.position_encoding or types.PositionEncodingKind.Utf16

    # ------------------------------------------------------------------ linting

    def lint(self, uri: str, *, use_cache: bool = False) -> LintedDocument | None:
        """Lint the document's current text and publish its findings; None once it is closed."""
        self._cancel_scheduled(uri)
        if uri not in self.workspace.text_documents:
            return None
        document = self.workspace.get_text_document(uri)
        if not is_python(document):
            return None
        try:
            result = linting.lint_document(document.source, document_path(document), document.version, use_cache=use_cache)
        except Exception:  # noqa: BLE001 - a bug in a rule must not take the editor's server down
            self.window_log_message(types.LogMessageParams(types.MessageType.Error, INTERNAL_ERROR.format(uri=uri, details=traceback.format_exc())))
            return None
        self.results[uri] = result
        self._publish(uri, result)
        return result

    def lint_later(self, uri: str) -> None:
        self._cancel_scheduled(uri)
        self._scheduled[uri] = asyncio.get_running_loop().call_later(DEBOUNCE_SECONDS, self.lint, uri)

    def close(self, uri: str) -> None:
        self._cancel_scheduled(uri)
        self.results.pop(uri, None)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def current_result(self, uri: str, *, use_cache: bool = False) -> LintedDocument | None:
        """The findings for the document's text as it is now: linted now if its text changed
        since the last lint (a lint is pending), or else the last result."""
        document = self.workspace.get_text_document(uri)
        result = self.results.get(uri)
        if result is None or result.source != document.source:
            result = self.lint(uri, use_cache=use_cache)
        return result

    def _publish(self, uri: str, result: LintedDocument) -> None:
        lines = protocol.split_lines(result.source)
        diagnostics = [protocol.to_lsp_diagnostic(d, lines, self.encoding) for d in result.diagnostics]
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=result.version))

    def _cancel_scheduled(self, uri: str) -> None:
        scheduled = self._scheduled.pop(uri, None)
        if scheduled is not None:
            scheduled.cancel()

    # ------------------------------------------------------------------ code actions

    def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        result = self.current_result(uri)
        if result is None:
            return []
        actions: list[types.CodeAction] = []
        if _wants(params.context.only, types.CodeActionKind.QuickFix):
            lines = protocol.split_lines(result.source)
            for diagnostic in result.diagnostics:
                if _overlaps(protocol.to_range(diagnostic.location, diagnostic.end_location, lines, self.encoding), params.range):
                    actions.extend(self._quick_fixes(uri, diagnostic, result, lines))
        if _wants(params.context.only, protocol.FIX_ALL_KIND):
            actions.extend(self._fix_all(uri, result))
        return actions

    def _quick_fixes(self, uri: str, diagnostic: Diagnostic, result: LintedDocument, lines: list[str]) -> list[types.CodeAction]:
        if diagnostic.code == SYNTAX_ERROR_CODE:
            return []
        lsp_diagnostic = protocol.to_lsp_diagnostic(diagnostic, lines, self.encoding)
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

    def _fix_all(self, uri: str, result: LintedDocument) -> list[types.CodeAction]:
        if not any(d.fix is not None and d.fix.applicability == "safe" for d in result.diagnostics):
            return []
        document = self.workspace.get_text_document(uri)
        fixed = linting.fix_all(result.source, document_path(document))
        if fixed is None:
            return []
        edit = protocol.replacement_edit(result.source, fixed, self.encoding)
        return [_action(protocol.FIX_ALL_TITLE, protocol.FIX_ALL_KIND, uri, [edit], [])]


def is_python(document: TextDocument) -> bool:
    """Clients may send every file they open (a pyproject.toml, a README): only Python is linted."""
    return document.language_id == "python" or document.uri.endswith(PYTHON_SUFFIXES)


def document_path(document: TextDocument) -> Path:
    """Where the buffer lives (or would live: an unsaved buffer lints as a file in the working directory)."""
    if document.uri.startswith("file:"):
        return Path(document.path)
    return Path.cwd() / UNTITLED_NAME


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


def create_server() -> TorchcheckServer:
    server = TorchcheckServer()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: TorchcheckServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.lint(params.text_document.uri, use_cache=True)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: TorchcheckServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.lint_later(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: TorchcheckServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.current_result(params.text_document.uri, use_cache=True)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: TorchcheckServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.close(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=CODE_ACTION_KINDS))
    def code_action(ls: TorchcheckServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        return ls.code_actions(params)

    return server
