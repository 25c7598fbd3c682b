"""On-disk cache of findings, keyed by file content, torchcheck's own code and the settings.

An unchanged tree re-lints by hashing files and reading one JSON file: no parsing at all.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import torchcheck
from torchcheck.lint.diagnostic import Diagnostic

CACHE_DIRECTORY = ".torchcheck_cache"
_CACHE_FILE = "findings-v1.json"
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


class FindingsCache:
    """Maps an entry key to the findings of that file."""

    def __init__(self, root: Path) -> None:
        self._directory = root / CACHE_DIRECTORY
        self._entries: dict[str, list[dict]] = {}
        self._dirty = False
        try:
            self._entries = json.loads((self._directory / _CACHE_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self._entries = {}

    def get(self, key: str) -> tuple[Diagnostic, ...] | None:
        stored = self._entries.get(key)
        if stored is None:
            return None
        try:
            return tuple(Diagnostic.from_dict(item) for item in stored)
        except (KeyError, TypeError):
            return None

    def put(self, key: str, diagnostics: Sequence[Diagnostic]) -> None:
        self._entries[key] = [diagnostic.to_dict() for diagnostic in diagnostics]
        self._dirty = True

    def save(self, keep: set[str]) -> None:
        """Write entries of this run (``keep``) atomically; failures only cost the cache."""
        if not self._dirty:
            return
        entries = {key: value for key, value in self._entries.items() if key in keep}
        try:
            self._directory.mkdir(exist_ok=True)
            gitignore = self._directory / ".gitignore"
            if not gitignore.exists():
                gitignore.write_text(_GITIGNORE_CONTENT, encoding="utf-8")
            handle, temporary = tempfile.mkstemp(dir=self._directory, suffix=".tmp")
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(entries, stream, separators=(",", ":"))
            os.replace(temporary, self._directory / _CACHE_FILE)
        except OSError:
            pass
