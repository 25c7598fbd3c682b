"""On-disk cache of findings, keyed by file content, torchcheck's own code and the settings.

An unchanged tree re-lints by hashing files and reading one JSON file: no parsing at all.
Each entry also keeps what the project index needs from the file (its export summary and
its deferred findings, see :mod:`torchcheck.lint.project`), so cross-file findings are
resolved anew on every run without parsing the files that did not change.
There is one cache per project root, shared by every run over any part of the project: a
run over a few files (a pre-commit hook) reads and adds entries and never drops the others'.
Entries are evicted by age (unused for :data:`MAX_AGE_SECONDS`) and by count (the least
recently used beyond :data:`MAX_ENTRIES`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import torchcheck
from torchcheck.lint.diagnostic import Diagnostic
from torchcheck.lint.project import DeferredFinding, ExportSummary

CACHE_DIRECTORY = ".torchcheck_cache"
MAX_AGE_SECONDS = 30 * 24 * 3600
MAX_ENTRIES = 50_000
_CACHE_FILE = "findings-v3.json"
_FORMAT_VERSION = 3
# A hit refreshes its entry's last-use time only when that time is older than this, so a
# fully cached run does not rewrite the cache file.
_REFRESH_SECONDS = 24 * 3600
_GITIGNORE_CONTENT = "# Created by torchcheck automatically.\n*\n"


@functools.cache
def _code_fingerprint() -> str:
    """Changes whenever any torchcheck source file changes (not only on version bumps)."""
    package = Path(torchcheck.__file__).parent
    digest = hashlib.sha256(torchcheck.__version__.encode())
    for path in sorted(package.rglob("*.py")):
        stat = path.stat()
        digest.update(f"{path.relative_to(package)}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return digest.hexdigest()


def settings_key(rule_codes: Sequence[str], settings: object) -> str:
    return hashlib.sha256(f"{_code_fingerprint()}|{','.join(rule_codes)}|{settings!r}".encode()).hexdigest()


def entry_key(filename: str, content: bytes, settings: str) -> str:
    digest = hashlib.sha256(content)
    digest.update(b"\0" + filename.encode("utf-8", "surrogateescape") + b"\0" + settings.encode())
    return digest.hexdigest()


def _load_entries(path: Path) -> dict[str, list]:
    """The stored entries; anything unreadable or of another shape counts as an empty cache."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(document, dict) or document.get("version") != _FORMAT_VERSION:
        return {}
    entries = document.get("entries")
    if not isinstance(entries, dict):
        return {}
    return {key: value for key, value in entries.items() if _is_entry(value)}


def _is_entry(value: object) -> bool:
    """``[last used, [finding, ...], {"deferred": [...], "exports": {...} or None}]``"""
    return (
        isinstance(value, list)
        and len(value) == 3
        and isinstance(value[0], (int, float))
        and isinstance(value[1], list)
        and isinstance(value[2], dict)
    )


@dataclass(frozen=True)
class CachedFile:
    """Everything one lint of a file produced that later runs reuse."""

    diagnostics: tuple[Diagnostic, ...]
    deferred: tuple[DeferredFinding, ...] = ()
    exports: ExportSummary | None = None


def _decoded(stored: list, project: dict) -> CachedFile:
    exports = project.get("exports")
    return CachedFile(
        tuple(Diagnostic.from_dict(item) for item in stored),
        tuple(DeferredFinding.from_dict(item) for item in project.get("deferred", ())),
        ExportSummary.from_dict(exports) if exports is not None else None,
    )


class FindingsCache:
    """Maps an entry key to the findings of one file, for one project root."""

    def __init__(self, root: Path, now: float | None = None) -> None:
        self._directory = root / CACHE_DIRECTORY
        self._now = time.time() if now is None else now
        self._entries = _load_entries(self._directory / _CACHE_FILE)
        self._dirty = False

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: str) -> tuple[Diagnostic, ...] | None:
        """The findings stored for ``key``, or None."""
        cached = self.get_file(key)
        return cached.diagnostics if cached is not None else None

    def get_file(self, key: str) -> CachedFile | None:
        """Findings, deferred findings and export summary stored for ``key``, or None
        (also for an entry that does not decode: it is linted again)."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        last_used, stored, project = entry
        try:
            cached = _decoded(stored, project)
        except (KeyError, TypeError, AttributeError, ValueError):
            return None
        if self._now - last_used > _REFRESH_SECONDS:
            entry[0] = self._now
            self._dirty = True
        return cached

    def put(
        self,
        key: str,
        diagnostics: Sequence[Diagnostic],
        deferred: Sequence[DeferredFinding] = (),
        exports: ExportSummary | None = None,
    ) -> None:
        project = {
            "deferred": [finding.to_dict() for finding in deferred],
            "exports": exports.to_dict() if exports is not None else None,
        }
        self._entries[key] = [self._now, [diagnostic.to_dict() for diagnostic in diagnostics], project]
        self._dirty = True

    def _kept_entries(self) -> dict[str, list]:
        fresh = {key: entry for key, entry in self._entries.items() if self._now - entry[0] <= MAX_AGE_SECONDS}
        if len(fresh) <= MAX_ENTRIES:
            return fresh
        newest = sorted(fresh.items(), key=lambda item: item[1][0], reverse=True)[:MAX_ENTRIES]
        return dict(newest)

    def save(self) -> None:
        """Write the cache atomically if this run changed it; failures only cost the cache."""
        if not self._dirty:
            return
        document = {"version": _FORMAT_VERSION, "entries": self._kept_entries()}
        try:
            self._directory.mkdir(exist_ok=True)
            gitignore = self._directory / ".gitignore"
            if not gitignore.exists():
                gitignore.write_text(_GITIGNORE_CONTENT, encoding="utf-8")
            handle, temporary = tempfile.mkstemp(dir=self._directory, suffix=".tmp")
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as stream:
                    # dumps, not dump: only the one-shot encoder is the C one (five times faster)
                    stream.write(json.dumps(document, separators=(",", ":")))
                os.replace(temporary, self._directory / _CACHE_FILE)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        except OSError:
            pass
