"""On-disk cache of findings, keyed by file content, torchcheck's own code and the settings.

An unchanged tree re-lints by hashing files and reading one JSON file: no parsing at all.
Each entry also keeps what the project index needs from the file (its export summary and
its deferred findings, see :mod:`torchcheck.lint.project`), so cross-file findings are
resolved anew on every run without parsing the files that did not change.
There is one cache per project root, shared by every run over any part of the project: a
run over a few files (a pre-commit hook) reads and adds entries and never drops the others'.

Eviction scales with the tree. An entry unused for :data:`MAX_AGE_SECONDS` goes. Beyond the
cap (:data:`MAX_ENTRIES`, or twice the files of this run when that is more) the entries of
files that no longer exist go first, then those that a more recently used entry of the same
file replaced (an older content, other settings), least recently used first. The entries this
run used, and the newest entry of each file that still exists, are never evicted for count:
the cache holds at least one entry per file of the tree, so a warm run lints nothing again.

The cache file is read only when it is a regular file of sane size, and every entry is
checked against the types it decodes to: whatever is on disk, a broken cache costs a
re-lint, never the run.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import functools
import hashlib
import json
import operator
import os
import stat
import sys
import tempfile
import time
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torchcheck
from torchcheck.lint.diagnostic import Diagnostic
from torchcheck.lint.project import DeferredFinding, ExportSummary

CACHE_DIRECTORY = ".torchcheck_cache"
MAX_AGE_SECONDS = 30 * 24 * 3600
MAX_ENTRIES = 50_000  # the cap's floor: it grows with the run, see FindingsCache._cap
MAX_FILE_BYTES = 1 << 30  # a larger cache file is not read (it would take gigabytes of memory)
_RUN_HEADROOM = 2  # room beyond this run's entries, for other settings and older contents
# Entries are [last used, [finding, ...], {"deferred": [...], "exports": {...} or None}, path]:
# the path (of the file linted, absolute) came later; entries without it are still read. A
# reader of an older torchcheck drops these entries (its entries have three items).
_CACHE_FILE = "findings-v3.json"
_FORMAT_VERSION = 3
# A hit refreshes its entry's last-use time on disk only when that time is older than this,
# so a fully cached run does not rewrite the cache file.
_REFRESH_SECONDS = 24 * 3600
_GITIGNORE_CONTENT = "# Created by torchcheck automatically.\n*\n"

NOT_A_REGULAR_FILE = "it is not a regular file; remove it to cache findings again"
TOO_LARGE = "it is larger than {limit:,} bytes"
CACHE_IGNORED = "torchcheck: warning: not using the cache {path}: {reason}\n"
_warned: set[str] = set()


@functools.cache
def _code_fingerprint() -> str:
    """Changes whenever any torchcheck source file changes (not only on version bumps)."""
    package = Path(torchcheck.__file__).parent
    digest = hashlib.sha256(torchcheck.__version__.encode())
    for path in sorted(package.rglob("*.py")):
        status = path.stat()
        digest.update(f"{path.relative_to(package)}:{status.st_size}:{status.st_mtime_ns}".encode())
    return digest.hexdigest()


def settings_key(rule_codes: Sequence[str], settings: object) -> str:
    return hashlib.sha256(f"{_code_fingerprint()}|{','.join(rule_codes)}|{settings!r}".encode()).hexdigest()


def entry_key(filename: str, content: bytes, settings: str) -> str:
    digest = hashlib.sha256(content)
    digest.update(b"\0" + filename.encode("utf-8", "surrogateescape") + b"\0" + settings.encode())
    return digest.hexdigest()


# ----------------------------------------------------------------------------- reading


def _warn_once(path: Path, reason: str) -> None:
    if str(path) not in _warned:
        _warned.add(str(path))
        sys.stderr.write(CACHE_IGNORED.format(path=path, reason=reason))


def _read_cache_file(path: Path, max_bytes: int) -> tuple[bytes | None, str | None]:
    """The file's content, or None and why it must not be used (None: there is no cache yet).

    Opened without blocking and checked before reading: a FIFO would block forever and
    ``/dev/zero`` never ends.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        descriptor = os.open(path, flags)
    except (OSError, ValueError):
        return None, None
    with os.fdopen(descriptor, "rb") as stream:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            return None, NOT_A_REGULAR_FILE
        if status.st_size > max_bytes:
            return None, TOO_LARGE.format(limit=max_bytes)
        try:
            return stream.read(max_bytes + 1), None
        except OSError:
            return None, None


def _entries_of(content: bytes) -> dict[str, list]:
    """The well-formed entries; a document of another shape counts as an empty cache."""
    try:
        document = json.loads(content)
    except (ValueError, RecursionError):
        return {}
    if not isinstance(document, dict) or document.get("version") != _FORMAT_VERSION:
        return {}
    entries = document.get("entries")
    if not isinstance(entries, dict):
        return {}
    return {key: value for key, value in entries.items() if _is_entry(value)}


def _is_entry(value: object) -> bool:
    """``[last used, [finding, ...], {"deferred": [...], "exports": {...} or None}, path]``"""
    return (
        isinstance(value, list)
        and len(value) in (3, 4)
        and type(value[0]) in (int, float)
        and isinstance(value[1], list)
        and isinstance(value[2], dict)
        and (len(value) == 3 or value[3] is None or isinstance(value[3], str))
    )


# ----------------------------------------------------------------------------- decoding


@dataclass(frozen=True)
class CachedFile:
    """Everything one lint of a file produced that later runs reuse."""

    diagnostics: tuple[Diagnostic, ...]
    deferred: tuple[DeferredFinding, ...] = ()
    exports: ExportSummary | None = None


def _decoded(stored: list, project: dict) -> CachedFile:
    """The entry's content; ValueError (or another error of a malformed value) when it is
    not what it claims: valid JSON of the wrong types must not reach the output."""
    exports = project.get("exports")
    cached = CachedFile(
        tuple(Diagnostic.from_dict(item) for item in stored),
        tuple(DeferredFinding.from_dict(item) for item in project.get("deferred", ())),
        ExportSummary.from_dict(exports) if exports is not None else None,
    )
    if not _well_typed(cached, CachedFile):
        raise ValueError("a cache entry of the wrong types")
    return cached


def _well_typed(value: object, hint: Any) -> bool:
    """Whether ``value`` has the type ``hint`` declares, through dataclass fields, tuples,
    mappings and unions: decoding checks nothing, so a number where a file name belongs
    would only fail later, while printing."""
    return _checker(hint)(value)


Checker = Callable[[object], bool]


@functools.cache
def _checker(hint: Any) -> Checker:
    """A check of values against ``hint``, built once per type: a warm run checks every entry."""
    origin = typing.get_origin(hint)
    arguments = typing.get_args(hint)
    if hint is Any:
        return lambda value: True
    if origin is typing.Union or origin is types.UnionType:
        options = tuple(_checker(option) for option in arguments)
        return lambda value: any(check(value) for check in options)
    if origin is tuple:
        return _tuple_checker(arguments)
    if origin in (collections.abc.Mapping, dict):
        return _mapping_checker(*arguments)
    if dataclasses.is_dataclass(hint):
        return _dataclass_checker(hint)
    if hint is float:
        return lambda value: type(value) in (int, float)
    if hint in (int, str, bool, type(None)):
        return lambda value: type(value) is hint  # JSON true is no int here
    return lambda value: isinstance(hint, type) and isinstance(value, hint)


def _tuple_checker(arguments: tuple[Any, ...]) -> Checker:
    if len(arguments) == 2 and arguments[1] is Ellipsis:
        check_item = _checker(arguments[0])
        return lambda value: type(value) is tuple and all(map(check_item, value))
    checks = tuple(_checker(argument) for argument in arguments)
    return lambda value: (
        type(value) is tuple and len(value) == len(checks) and all(check(item) for check, item in zip(checks, value))
    )


def _mapping_checker(key_hint: Any, item_hint: Any) -> Checker:
    check_key, check_item = _checker(key_hint), _checker(item_hint)
    if item_hint is Any:
        return lambda value: isinstance(value, Mapping) and all(map(check_key, value))
    return lambda value: (
        isinstance(value, Mapping) and all(map(check_key, value)) and all(map(check_item, value.values()))
    )


def _dataclass_checker(cls: type) -> Checker:
    hints = typing.get_type_hints(cls)
    names = [field.name for field in dataclasses.fields(cls)]
    checks = [_checker(hints[name]) for name in names]
    values = operator.attrgetter(*names) if len(names) > 1 else (lambda value: (getattr(value, names[0]),))
    return lambda value: type(value) is cls and all(map(_holds, checks, values(value)))


def _holds(check: Checker, value: object) -> bool:
    return check(value)


# ----------------------------------------------------------------------------- eviction


def _path_of(entry: list) -> str | None:
    return entry[3] if len(entry) == 4 else None


def _exists(path: str) -> bool:
    try:
        return os.path.lexists(path)
    except ValueError:  # an embedded NUL byte: no such file
        return False


def _evictable(entries: Mapping[str, list], used: set[str]) -> list[str]:
    """Keys that eviction for count may remove, in order: entries of files that no longer
    exist (or of no known file), then entries replaced by a more recently used one of the
    same file; the least recently used first within each. The entries of this run and the
    newest entry of each file that exists are not among them."""
    newest: dict[str, tuple[bool, float, str]] = {}
    for key, entry in entries.items():
        path = _path_of(entry)
        if path is not None:
            newest[path] = max(newest.get(path, (False, float("-inf"), "")), (key in used, entry[0], key))
    exists: dict[str, bool] = {}
    ranked = []
    for key, entry in entries.items():
        if key in used:
            continue
        path = _path_of(entry)
        if path is not None and path not in exists:
            exists[path] = _exists(path)
        if path is None or not exists[path]:
            ranked.append((0, entry[0], key))
        elif newest[path][2] != key:
            ranked.append((1, entry[0], key))
    return [key for _, _, key in sorted(ranked)]


# ----------------------------------------------------------------------------- the cache


class FindingsCache:
    """Maps an entry key to the findings of one file, for one project root.

    ``max_entries`` is the cap's floor and ``max_file_bytes`` the largest cache file read
    (parameters so that tests need not build a tree of 50,000 files).
    """

    def __init__(
        self,
        root: Path,
        now: float | None = None,
        *,
        max_entries: int = MAX_ENTRIES,
        max_file_bytes: int = MAX_FILE_BYTES,
    ) -> None:
        self._directory = root / CACHE_DIRECTORY
        self._now = time.time() if now is None else now
        self._max_entries = max_entries
        self._used: set[str] = set()  # keys this run read or wrote: never evicted
        content, problem = _read_cache_file(self._directory / _CACHE_FILE, max_file_bytes)
        if problem is not None:
            _warn_once(self._directory / _CACHE_FILE, problem)
        # A cache file that is not a regular file is the user's: never replace it.
        self._writable = problem != NOT_A_REGULAR_FILE
        self._entries = _entries_of(content) if content is not None else {}
        self._dirty = False

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: str) -> tuple[Diagnostic, ...] | None:
        """The findings stored for ``key``, or None."""
        cached = self.get_file(key)
        return cached.diagnostics if cached is not None else None

    def get_file(self, key: str) -> CachedFile | None:
        """Findings, deferred findings and export summary stored for ``key``, or None
        (also for an entry that does not decode: it is dropped, and the file linted again)."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        try:
            cached = _decoded(entry[1], entry[2])
        except (KeyError, TypeError, AttributeError, ValueError, RecursionError):
            del self._entries[key]
            self._dirty = True
            return None
        self._used.add(key)
        if self._now - entry[0] > _REFRESH_SECONDS:
            self._dirty = True
        entry[0] = self._now  # the order of eviction is the order of last use
        return cached

    def put(
        self,
        key: str,
        diagnostics: Sequence[Diagnostic],
        deferred: Sequence[DeferredFinding] = (),
        exports: ExportSummary | None = None,
        *,
        path: Path | None = None,
    ) -> None:
        """Store what linting the file at ``path`` gave; without ``path`` the entry is the
        first to go when the cache is full."""
        project = {
            "deferred": [finding.to_dict() for finding in deferred],
            "exports": exports.to_dict() if exports is not None else None,
        }
        findings = [diagnostic.to_dict() for diagnostic in diagnostics]
        self._entries[key] = [self._now, findings, project, os.fspath(path) if path is not None else None]
        self._used.add(key)
        self._dirty = True

    def _cap(self) -> int:
        return max(self._max_entries, _RUN_HEADROOM * len(self._used))

    def _kept_entries(self) -> dict[str, list]:
        kept = {
            key: entry
            for key, entry in self._entries.items()
            if key in self._used or self._now - entry[0] <= MAX_AGE_SECONDS
        }
        excess = len(kept) - self._cap()
        if excess > 0:
            for key in _evictable(kept, self._used)[:excess]:
                del kept[key]
        return kept

    def save(self) -> None:
        """Write the cache atomically if this run changed it; failures only cost the cache."""
        if not self._dirty or not self._writable:
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
