"""``[tool.torchcheck]`` in pyproject.toml -> a frozen :class:`Config`.

Knows nothing about syntax trees or rules: it reads, type-checks and normalises settings.
Whether a code names a real rule is checked by the linter, which names this file in errors.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

PYPROJECT = "pyproject.toml"
SECTION = ("tool", "torchcheck")

DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", ".venv", "venv", ".env", "env", ".tox", ".nox", ".eggs", "*.egg-info",
    "build", "dist", "__pycache__", "site-packages", "node_modules", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".torchcheck_cache", "__pypackages__", "_build",
)

_LIST_KEYS = ("select", "ignore", "extend-select", "exclude", "extend-exclude")
_KNOWN_KEYS = frozenset({*_LIST_KEYS, "per-file-ignores", "target-version"})
_VERSION = re.compile(r"^(\d+)\.(\d+)$")


class ConfigError(Exception):
    """A setting is malformed or unknown; the message names the key and the file."""


@dataclass(frozen=True)
class Config:
    """Effective settings for the files under ``root``."""

    root: Path
    source: Path | None = None  # the pyproject.toml these settings came from
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = field(default=())
    # the oldest PyTorch the project supports: deprecations whose replacement is newer stay quiet
    target_version: tuple[int, int] | None = None

    @property
    def all_exclude(self) -> tuple[str, ...]:
        return (*self.exclude, *self.extend_exclude)

    @property
    def origin(self) -> str:
        return str(self.source) if self.source is not None else "the command line"


def _string_list(value: Any, key: str, source: Path) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{source}: [tool.torchcheck] {key} must be a list of strings, got {value!r}")
    return tuple(value)


def _per_file_ignores(value: Any, source: Path) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{source}: [tool.torchcheck] per-file-ignores must be a table of pattern = [codes]")
    return tuple(
        (pattern, _string_list(codes, f"per-file-ignores.{pattern!r}", source)) for pattern, codes in value.items()
    )


def parse_target_version(value: Any, origin: str) -> tuple[int, int]:
    match = _VERSION.match(value) if isinstance(value, str) else None
    if match is None:
        raise ConfigError(f"{origin}: target-version must be a PyTorch version like \"2.1\", got {value!r}")
    return int(match.group(1)), int(match.group(2))


def parse_settings(settings: dict[str, Any], source: Path) -> Config:
    """Build a Config from the ``[tool.torchcheck]`` table of ``source``."""
    unknown = sorted(set(settings) - _KNOWN_KEYS)
    if unknown:
        known = ", ".join(sorted(_KNOWN_KEYS))
        raise ConfigError(f"{source}: unknown key {unknown[0]!r} in [tool.torchcheck] (known keys: {known})")
    lists = {key: _string_list(settings[key], key, source) for key in _LIST_KEYS if key in settings}
    return Config(
        root=source.parent,
        source=source,
        select=lists.get("select"),
        extend_select=lists.get("extend-select", ()),
        ignore=lists.get("ignore", ()),
        per_file_ignores=_per_file_ignores(settings.get("per-file-ignores", {}), source),
        exclude=lists.get("exclude", DEFAULT_EXCLUDE),
        extend_exclude=lists.get("extend-exclude", ()),
        target_version=parse_target_version(settings["target-version"], str(source))
        if "target-version" in settings
        else None,
    )


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from error
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from error


def _section(document: dict[str, Any]) -> dict[str, Any] | None:
    table: Any = document
    for key in SECTION:
        if not isinstance(table, dict) or key not in table:
            return None
        table = table[key]
    return table if isinstance(table, dict) else None


def load_file(path: Path) -> Config:
    """Settings from an explicit file (``--config``); an empty section is fine, a missing file is not."""
    path = path.resolve()
    if not path.is_file():
        raise ConfigError(f"{path}: config file not found")
    return parse_settings(_section(_read_toml(path)) or {}, path)


def discover(start: Path) -> Config:
    """Settings from the nearest pyproject.toml with a ``[tool.torchcheck]`` table above ``start``."""
    directory = start.resolve()
    if not directory.is_dir():
        directory = directory.parent
    for candidate_dir in (directory, *directory.parents):
        candidate = candidate_dir / PYPROJECT
        if candidate.is_file():
            section = _section(_read_toml(candidate))
            if section is not None:
                return parse_settings(section, candidate)
    return Config(root=Path.cwd())
