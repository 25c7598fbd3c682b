"""``[tool.torchcheck]`` in pyproject.toml -> a frozen :class:`Config`.

Knows nothing about syntax trees or rules: it reads, type-checks and normalises settings.
Whether a code names a real rule is checked by the linter, which names this file in errors.
"""

from __future__ import annotations

import os
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

# Which files a directory walk lints, matched against the name and the project-relative path.
DEFAULT_INCLUDE = ("*.py", "*.pyi", "*.ipynb")

DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024

_LIST_KEYS = ("select", "ignore", "extend-select", "exclude", "extend-exclude", "include", "extend-include")
_KNOWN_KEYS = frozenset({*_LIST_KEYS, "per-file-ignores", "target-version", "force-exclude", "max-file-size"})
_VERSION = re.compile(r"^(\d+)\.(\d+)$")
_SIZE = re.compile(r"^\s*(\d+)\s*([KMG]i?B|B)?\s*$", re.IGNORECASE)
_SIZE_UNITS = {"": 1, "B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3}

NO_SECTION = "{path}: no [tool.torchcheck] table (a --config file must have one)"
NOT_UTF8 = "{path}: cannot read: not valid UTF-8 ({error}); TOML files must be UTF-8"
SECTION_NOT_A_TABLE = "{path}: [tool.torchcheck] must be a table of settings, got {value!r}"
NOT_A_BOOLEAN = "{source}: [tool.torchcheck] {key} must be true or false, got {value!r}"
BAD_SIZE = (
    "{source}: [tool.torchcheck] max-file-size must be a positive size like \"10MB\", \"512KB\" "
    "or a number of bytes, got {value!r}"
)


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
    include: tuple[str, ...] = DEFAULT_INCLUDE
    extend_include: tuple[str, ...] = ()
    # the oldest PyTorch the project supports: deprecations whose replacement is newer stay quiet
    target_version: tuple[int, int] | None = None
    # apply exclude/extend-exclude to files named on the command line too (ruff's meaning)
    force_exclude: bool = False
    max_file_size: int = DEFAULT_MAX_FILE_SIZE  # in bytes; larger files are reported, not linted

    @property
    def all_exclude(self) -> tuple[str, ...]:
        return (*self.exclude, *self.extend_exclude)

    @property
    def all_include(self) -> tuple[str, ...]:
        return (*self.include, *self.extend_include)

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


def _boolean(value: Any, key: str, source: Path) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(NOT_A_BOOLEAN.format(source=source, key=key, value=value))
    return value


def parse_size(value: Any, origin: str) -> int:
    """Bytes in ``value``: an integer, or a string like ``"10MB"`` (units of 1024: KB, MB, GB; KiB too)."""
    if isinstance(value, int) and not isinstance(value, bool):
        size = value
    else:
        match = _SIZE.match(value) if isinstance(value, str) else None
        if match is None:
            raise ConfigError(BAD_SIZE.format(source=origin, value=value))
        unit = (match.group(2) or "").upper().replace("I", "")
        size = int(match.group(1)) * _SIZE_UNITS[unit]
    if size <= 0:
        raise ConfigError(BAD_SIZE.format(source=origin, value=value))
    return size


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
        include=lists.get("include", DEFAULT_INCLUDE),
        extend_include=lists.get("extend-include", ()),
        target_version=parse_target_version(settings["target-version"], str(source))
        if "target-version" in settings
        else None,
        force_exclude=_boolean(settings.get("force-exclude", False), "force-exclude", source),
        max_file_size=parse_size(settings.get("max-file-size", DEFAULT_MAX_FILE_SIZE), str(source)),
    )


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from error
    except UnicodeDecodeError as error:
        raise ConfigError(NOT_UTF8.format(path=path, error=error.reason)) from error
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from error


def _section(document: dict[str, Any], path: Path) -> dict[str, Any] | None:
    """The ``[tool.torchcheck]`` table, None when absent; anything but a table there is an error."""
    tool = document.get("tool")
    if not isinstance(tool, dict) or SECTION[1] not in tool:
        return None
    section = tool[SECTION[1]]
    if not isinstance(section, dict):
        raise ConfigError(SECTION_NOT_A_TABLE.format(path=path, value=section))
    return section


def _resolved(path: Path) -> Path:
    """``path`` with symbolic links followed where possible; a link loop stays as spelled."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # RuntimeError: a symbolic link loop on Python < 3.13
        return Path(os.path.abspath(path))


def _is_file(path: Path) -> bool:
    """``Path.is_file`` that answers False for a directory we may not look into."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def _is_directory(path: Path) -> bool:
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def load_file(path: Path) -> Config:
    """Settings from an explicit file (``--config``): it must exist and have a ``[tool.torchcheck]`` table."""
    path = _resolved(path)
    if not _is_file(path):
        raise ConfigError(f"{path}: config file not found")
    section = _section(_read_toml(path), path)
    if section is None:
        raise ConfigError(NO_SECTION.format(path=path))
    return parse_settings(section, path)


def discover(start: Path) -> Config:
    """Settings from the nearest pyproject.toml with a ``[tool.torchcheck]`` table above ``start``.

    Directories that cannot be looked into on the way up are skipped.
    """
    directory = _resolved(start)
    if not _is_directory(directory):
        directory = directory.parent
    for candidate_dir in (directory, *directory.parents):
        candidate = candidate_dir / PYPROJECT
        if _is_file(candidate):
            section = _section(_read_toml(candidate), candidate)
            if section is not None:
                return parse_settings(section, candidate)
    return Config(root=Path.cwd())

