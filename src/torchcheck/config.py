"""``[tool.torchcheck]`` in pyproject.toml -> a frozen :class:`Config`.

Knows nothing about syntax trees or rules: it reads, type-checks and normalises settings.
Whether a code names a real rule is checked by the linter, which names this file in errors.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
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
# The pytest plugin's sub-tables of [tool.torchcheck]: the linter accepts and ignores them.
_RUNTIME_TABLES = frozenset({"models", "golden"})
_VERSION = re.compile(r"^(\d+)\.(\d+)$")
# A requirement on PyTorch itself (`torch>=1.8.0`, `torch[opt] ~= 2.1; python_version > "3.8"`),
# not on another package whose name starts with it (`torchvision`)
_TORCH_REQUIREMENT = re.compile(r"^\s*torch\s*(?:\[[^\]]*\])?\s*(?P<specifiers>[<>=!~][^;#]*)", re.IGNORECASE)
_LOWER_BOUND = re.compile(r"(?:>=|~=|===?|>)\s*(\d+)\.(\d+)")
REQUIREMENTS = "requirements.txt"
_SIZE = re.compile(r"^\s*(\d+)\s*([KMG]i?B|B)?\s*$", re.IGNORECASE)
_SIZE_UNITS = {"": 1, "B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3}

NO_SECTION = "{path}: no [tool.torchcheck] table (a --config file must have one)"
NOT_UTF8 = "{path}: cannot read: not valid UTF-8 ({error}); TOML files must be UTF-8"
NESTED_TOO_DEEPLY = "arrays or tables nested too deeply to read"
TOO_DEEP = "{path}: invalid TOML: " + NESTED_TOO_DEEPLY
SECTION_NOT_A_TABLE = "{path}: [tool.torchcheck] must be a table of settings, got {value!r}"
NOT_A_BOOLEAN = "{source}: [tool.torchcheck] {key} must be true or false, got {value!r}"
BAD_OVERRIDE = (
    "{origin}: neither a config file that exists nor a TOML `KEY = VALUE` override ({error}); "
    "quote strings and lists as in pyproject.toml: --config \"ignore = ['TCK105']\""
)
TWO_CONFIG_FILES = (
    "--config names two files, {first} and {second}: give one --config file, and any number "
    "of `KEY = VALUE` overrides"
)
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
    # where target_version was read when no setting gave it: the project's own requirement on torch
    target_version_declared_in: Path | None = None
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


def _string_list(value: Any, key: str, source: Path | str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{source}: [tool.torchcheck] {key} must be a list of strings, got {value!r}")
    return tuple(value)


def _per_file_ignores(value: Any, source: Path | str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{source}: [tool.torchcheck] per-file-ignores must be a table of pattern = [codes]")
    return tuple(
        (pattern, _string_list(codes, f"per-file-ignores.{pattern!r}", source)) for pattern, codes in value.items()
    )


def _boolean(value: Any, key: str, source: Path | str) -> bool:
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


def _fields(settings: dict[str, Any], origin: str) -> dict[str, Any]:
    """The :class:`Config` fields that ``settings`` (a ``[tool.torchcheck]`` table, or inline
    overrides) sets, type-checked and normalised; ``origin`` names them in errors."""
    unknown = sorted(set(settings) - _KNOWN_KEYS - _RUNTIME_TABLES)
    if unknown:
        known = ", ".join(sorted(_KNOWN_KEYS))
        raise ConfigError(f"{origin}: unknown key {unknown[0]!r} in [tool.torchcheck] (known keys: {known})")
    fields: dict[str, Any] = {
        key.replace("-", "_"): _string_list(settings[key], key, origin) for key in _LIST_KEYS if key in settings
    }
    if "per-file-ignores" in settings:
        fields["per_file_ignores"] = _per_file_ignores(settings["per-file-ignores"], origin)
    if "target-version" in settings:
        fields["target_version"] = parse_target_version(settings["target-version"], origin)
    if "force-exclude" in settings:
        fields["force_exclude"] = _boolean(settings["force-exclude"], "force-exclude", origin)
    if "max-file-size" in settings:
        fields["max_file_size"] = parse_size(settings["max-file-size"], origin)
    return fields


def parse_settings(settings: dict[str, Any], source: Path) -> Config:
    """Build a Config from the ``[tool.torchcheck]`` table of ``source``."""
    return Config(root=source.parent, source=source, **_fields(settings, str(source)))


def parse_override(text: str) -> dict[str, Any]:
    """One ``--config "KEY = VALUE"`` override (TOML, as in ``[tool.torchcheck]``), checked
    like a setting in a file; a malformed one is a ConfigError naming it."""
    origin = f"--config {text!r}"
    try:
        settings = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(BAD_OVERRIDE.format(origin=origin, error=error)) from error
    except RecursionError:
        raise ConfigError(BAD_OVERRIDE.format(origin=origin, error=NESTED_TOO_DEEPLY)) from None
    _fields(settings, origin)
    return settings


def split_config_arguments(values: Sequence[str]) -> tuple[Path | None, tuple[str, ...]]:
    """The ``--config`` values as (the config file, the inline ``KEY = VALUE`` overrides).

    As in ruff, a value is a file when such a file exists, or when it holds no ``=`` (so a
    missing file is reported as missing); otherwise it is an override. At most one file.
    """
    files = [value for value in values if _is_file(Path(value)) or "=" not in value]
    if len(files) > 1:
        raise ConfigError(TWO_CONFIG_FILES.format(first=files[0], second=files[1]))
    overrides = tuple(value for value in values if value not in files)
    for override in overrides:
        parse_override(override)
    return (Path(files[0]) if files else None), overrides


def override_selectors(overrides: Sequence[str]) -> list[tuple[str, tuple[str, ...]]]:
    """The rule selectors each override sets (``select``, ``ignore``, per-file-ignores...),
    with the override to name when one of them names no rule."""
    found = []
    for override in overrides:
        fields = _fields(parse_override(override), f"--config {override!r}")
        selectors = [*fields.get("select", ()), *fields.get("extend_select", ()), *fields.get("ignore", ())]
        selectors += [code for _, codes in fields.get("per_file_ignores", ()) for code in codes]
        found.append((f"--config {override!r}", tuple(selectors)))
    return found


def with_overrides(config: Config, overrides: Sequence[str]) -> Config:
    """``config`` with the inline ``--config`` overrides applied, later ones winning."""
    if not overrides:
        return config
    settings: dict[str, Any] = {}
    for override in overrides:
        settings.update(parse_override(override))
    fields = _fields(settings, "--config")
    if "target_version" in fields:
        fields["target_version_declared_in"] = None
    return replace(config, **fields)


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
    except RecursionError:
        # The whole file is unreadable, whichever table the nesting is in: our table, if
        # any, cannot be found, and skipping the file would silently drop its settings.
        raise ConfigError(TOO_DEEP.format(path=path)) from None


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

    Directories that cannot be looked into on the way up are skipped. Without a
    ``target-version`` setting, the oldest PyTorch the project declares it needs (see
    :func:`declared_torch_floor`) is the target version.
    """
    directory = _resolved(start)
    if not _is_directory(directory):
        directory = directory.parent
    declared: tuple[tuple[int, int], Path] | None = None
    looked = False
    for candidate_dir in (directory, *directory.parents):
        candidate = candidate_dir / PYPROJECT
        document = _read_toml(candidate) if _is_file(candidate) else None
        if not looked and (document is not None or _is_file(candidate_dir / REQUIREMENTS)):
            declared, looked = declared_torch_floor(candidate_dir, document), True  # the project's root: the nearest one
        section = _section(document, candidate) if document is not None else None
        if section is not None:
            return _with_declared(parse_settings(section, candidate), declared)
    return _with_declared(Config(root=Path.cwd()), declared)


def declared_torch_floor(directory: Path, pyproject: dict[str, Any] | None) -> tuple[tuple[int, int], Path] | None:
    """The oldest PyTorch that the project in ``directory`` declares it supports, and the file
    that says so: the lower bound of its requirement on ``torch`` in ``pyproject.toml``'s
    ``[project] dependencies``, else in ``requirements.txt``; None when neither bounds it."""
    project = pyproject.get("project") if pyproject is not None else None
    dependencies = project.get("dependencies") if isinstance(project, dict) else None
    if isinstance(dependencies, list):
        found = _lowest_bound(item for item in dependencies if isinstance(item, str))
        if found is not None:
            return found, directory / PYPROJECT
    requirements = directory / REQUIREMENTS
    try:
        lines = requirements.read_text(encoding="utf-8", errors="replace").splitlines() if _is_file(requirements) else []
    except OSError:
        return None  # an unreadable requirements file declares nothing we can use
    found = _lowest_bound(lines)
    return (found, requirements) if found is not None else None


def _lowest_bound(requirements: Iterable[str]) -> tuple[int, int] | None:
    bounds = []
    for requirement in requirements:
        match = _TORCH_REQUIREMENT.match(requirement)
        if match is not None:
            bounds += [(int(major), int(minor)) for major, minor in _LOWER_BOUND.findall(match["specifiers"])]
    return min(bounds) if bounds else None


def _with_declared(config: Config, declared: tuple[tuple[int, int], Path] | None) -> Config:
    if config.target_version is not None or declared is None:
        return config
    return replace(config, target_version=declared[0], target_version_declared_in=declared[1])

