"""The editor's project index: findings that span files, kept current as buffers change.

A project (the root its imports are looked up under, as for ``torchcheck lint``) knows
two kinds of export summaries: those of its open documents, from their latest text, saved
or not, and those of the files on disk, read when a question first needs them (from the
command line's findings cache when it holds the file's content, else parsed once) and
read again only when the file's size or modification time changes. Nothing is parsed at
a keystroke but the document being typed in.

Each open document's deferred findings are resolved against that index, and the files
the answers read are remembered: when one of them changes (its buffer is edited, it is
opened, closed or saved, or it changes on disk) the documents that depend on it are
resolved again, which is a few dictionary lookups, not a lint.

Like :mod:`torchcheck.server.linting`, this module knows nothing about the protocol.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from torchcheck.config import Config
from torchcheck.lint import api
from torchcheck.lint import files as files_module
from torchcheck.lint.cache import FindingsCache
from torchcheck.lint.diagnostic import Diagnostic
from torchcheck.lint.project import DeferredFinding, ExportSummary, IndexedFile, ModuleLocator, ProjectIndex
from torchcheck.lint.settings import LintSettings
from torchcheck.server.linting import DocumentSettings, LintedDocument

_FileStamp = tuple[int, int]  # size and modification time: a file whose stamp is unchanged is not read again
PYTHON_SUFFIXES = (".py", ".pyi")
Published = tuple[str, tuple[Diagnostic, ...]]  # a document's URI and the cross-file findings that stand in it


def file_key(path: Path) -> str:
    """How the index names a file: its absolute path, symbolic links resolved."""
    return path.resolve().as_posix()


@dataclass
class OpenDocument:
    """An open document's part in the index: its deferred findings, those that stand and
    the files whose summaries decided them."""

    uri: str
    deferred: tuple[DeferredFinding, ...] = ()
    standing: tuple[Diagnostic, ...] = ()
    reads: frozenset[str] = frozenset()


@dataclass
class _DiskSummary:
    stamp: _FileStamp
    indexed: IndexedFile | None


class _RecordingSummaries(Mapping[str, IndexedFile]):
    """The project's summaries as :class:`ProjectIndex` reads them, noting every file it asks for."""

    def __init__(self, project: Project) -> None:
        self._project = project
        self.reads: set[str] = set()

    def __getitem__(self, key: str) -> IndexedFile:
        self.reads.add(key)
        indexed = self._project.summary(key)
        if indexed is None:
            raise KeyError(key)
        return indexed

    def __iter__(self) -> Iterator[str]:
        """The open buffers and the project's saved files: a project-wide fact (an ``_apply``
        override of another file moving an attribute) is looked for in every one."""
        return iter({**dict.fromkeys(self._project.buffers), **dict.fromkeys(self._project.saved_files())})

    def __len__(self) -> int:
        return sum(1 for _ in self)


@dataclass
class Project:
    """The summaries and open documents of one project root."""

    root: Path
    config: Config
    settings: LintSettings
    rule_codes: tuple[str, ...]
    cache: FindingsCache
    buffers: dict[str, IndexedFile] = field(default_factory=dict)
    documents: dict[str, OpenDocument] = field(default_factory=dict)
    _disk: dict[str, _DiskSummary] = field(default_factory=dict)
    _locator: ModuleLocator | None = None
    _saved_files: tuple[str, ...] | None = None

    def saved_files(self) -> tuple[str, ...]:
        """The Python files under the root that ``torchcheck lint`` of the root would lint,
        found once (again after files are created or deleted)."""
        if self._saved_files is None:
            config = self.config
            found = files_module.discover([self.root], config.root, config.all_exclude, include=config.all_include)
            self._saved_files = tuple(file_key(path) for path in found.files if path.suffix in PYTHON_SUFFIXES)
        return self._saved_files

    # ------------------------------------------------------------------ summaries
    def summary(self, key: str) -> IndexedFile | None:
        """The file's summary: its open buffer's, or else the saved file's."""
        buffered = self.buffers.get(key)
        return buffered if buffered is not None else self._disk_summary(key)

    def _disk_summary(self, key: str) -> IndexedFile | None:
        path = Path(key)
        if path.suffix not in PYTHON_SUFFIXES:
            return None  # an open notebook asking about itself: only modules are imported
        try:
            status = path.stat()
        except OSError:
            return None
        stamp = (status.st_size, status.st_mtime_ns)
        known = self._disk.get(key)
        if known is None or known.stamp != stamp:
            indexed = api.read_summary(path, self.config, self.settings, self.cache, rule_codes=self.rule_codes)
            known = self._disk[key] = _DiskSummary(stamp, indexed)
        return known.indexed

    def locate(self, importer: str, module: str, level: int) -> str | None:
        if self._locator is None:
            self._locator = ModuleLocator(self.root)
        return self._locator(importer, module, level)

    def reconfigure(self, config: Config, settings: LintSettings, rule_codes: tuple[str, ...]) -> None:
        """The project's config was edited: the saved files are summarised again under it."""
        self.config, self.settings, self.rule_codes = config, settings, rule_codes
        self.cache = FindingsCache(config.root.resolve())
        self._disk.clear()
        self._locator = None
        self._saved_files = None

    def files_changed(self) -> None:
        """Files were created or deleted: imports may now find other files."""
        self._locator = None
        self._saved_files = None

    # ------------------------------------------------------------------ open documents
    def update(self, key: str, uri: str, name: str, exports: ExportSummary | None, deferred: tuple[DeferredFinding, ...]) -> None:
        """Record a document's latest lint. A buffer that does not parse keeps its last
        summary, so that other files' findings do not flicker while it is being typed."""
        if exports is not None:
            self.buffers[key] = IndexedFile(name, exports)
        document = self.documents.setdefault(key, OpenDocument(uri))
        document.uri, document.deferred = uri, deferred
        self.resolve(key)

    def close(self, key: str) -> None:
        """The document is closed: its saved file stands for it again."""
        self.buffers.pop(key, None)
        self.documents.pop(key, None)

    def resolve(self, key: str) -> bool:
        """Resolve the document's deferred findings again; whether those that stand changed."""
        document = self.documents[key]
        summaries = _RecordingSummaries(self)
        index = ProjectIndex(summaries, self.locate)
        standing = tuple(diagnostic for finding in document.deferred if (diagnostic := index.resolve(key, finding)) is not None)
        changed = standing != document.standing
        document.standing, document.reads = standing, frozenset(summaries.reads - {key})
        return changed

    def dependents(self, key: str) -> list[str]:
        """The open documents (other than ``key`` itself) whose findings read ``key``'s summary."""
        return [other for other, document in self.documents.items() if other != key and key in document.reads]


class ProjectIndexes:
    """One :class:`Project` per project root, created when a document of it is first linted."""

    def __init__(self) -> None:
        self.projects: dict[Path, Project] = {}
        self._project_of: dict[str, Project] = {}

    def project_for(self, path: Path, settings: DocumentSettings) -> Project:
        root = api.index_root(path, settings.config).resolve()
        project = self.projects.get(root)
        if project is None:
            cache = FindingsCache(settings.root)
            project = self.projects[root] = Project(root, settings.config, settings.lint_settings, settings.rule_codes, cache)
        elif project.config != settings.config:
            project.reconfigure(settings.config, settings.lint_settings, settings.rule_codes)
        return project

    def update(self, path: Path, uri: str, linted: LintedDocument) -> list[Published]:
        """Record a document's lint; the cross-file findings to publish: the document's own
        first, then those of every open document whose findings changed because of it."""
        key = file_key(path)
        settings = linted.settings
        project = self.project_for(path, settings) if settings is not None else None
        previous = self._project_of.get(key)
        moved = []
        if previous is not None and previous is not project:  # excluded now, or under another root
            previous.close(key)
            del self._project_of[key]
            moved = self._refresh(previous, key)
        if project is None:
            return [(uri, ()), *moved]
        self._project_of[key] = project
        project.update(key, uri, api.display_name(path), linted.exports, linted.deferred)
        return [(uri, project.documents[key].standing), *moved, *self._refresh(project, key)]

    def close(self, path: Path) -> list[Published]:
        """Forget an open document; the findings to publish again in the documents that read it."""
        key = file_key(path)
        project = self._project_of.pop(key, None)
        if project is None:
            return []
        project.close(key)
        return self._refresh(project, key)

    def file_changed(self, path: Path, *, created_or_deleted: bool = False) -> list[Published]:
        """A file changed on disk (saved, or changed outside the editor); the findings to
        publish again. A created or deleted file may change where any import leads."""
        key = file_key(path)
        updates = []
        for project in self.projects.values():
            if created_or_deleted:
                project.files_changed()
                keys = list(project.documents)
            else:
                keys = project.dependents(key)
            updates.extend(self._resolved(project, keys))
        return updates

    def reads(self, path: Path) -> frozenset[str]:
        """The files whose summaries the open document's findings read."""
        key = file_key(path)
        project = self._project_of.get(key)
        document = project.documents.get(key) if project is not None else None
        return document.reads if document is not None else frozenset()

    def standing(self, path: Path) -> tuple[Diagnostic, ...]:
        key = file_key(path)
        project = self._project_of.get(key)
        return project.documents[key].standing if project is not None else ()

    def _refresh(self, project: Project, key: str) -> list[Published]:
        return self._resolved(project, project.dependents(key))

    @staticmethod
    def _resolved(project: Project, keys: list[str]) -> list[Published]:
        updates = []
        for key in keys:
            if project.resolve(key):
                document = project.documents[key]
                updates.append((document.uri, document.standing))
        return updates
