"""Linting one editor buffer the way ``torchcheck lint`` lints the file it will be saved as.

The document's path chooses its settings: the nearest ``pyproject.toml`` with a
``[tool.torchcheck]`` table (``select``, ``ignore``, ``per-file-ignores``,
``target-version``, ``exclude`` with ``force-exclude``, ``max-file-size``), read anew for
every lint so that an edited config applies at the next keystroke. The findings cache of
the command line is read for unchanged files (a buffer just opened or saved); the server
never writes it. A notebook (``.ipynb``) is linted as ``torchcheck lint`` lints it: its code
cells joined, findings counted within their cells.

Besides its own findings, a lint yields what the project index needs: the buffer's export
summary and its deferred findings (those that hold only given facts about other files).

This module knows nothing about the Language Server Protocol, so it is tested and
benchmarked without a client.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from torchcheck import config as config_module
from torchcheck.config import Config, ConfigError
from torchcheck.lint import api, files, notebooks, registry
from torchcheck.lint.cache import CachedFile, FindingsCache, entry_key, settings_key
from torchcheck.lint.catalogue import RuleInfo
from torchcheck.lint.diagnostic import Diagnostic
from torchcheck.lint.project import DeferredFinding, ExportSummary
from torchcheck.lint.settings import LintSettings

CONFIG_PROBLEM = "torchcheck settings could not be read, so this file was not linted: {error}"
TOO_LARGE = "file is {size:,} bytes, larger than max-file-size ({limit:,} bytes); not linted"
CRASHED = (
    "torchcheck could not analyse this file: the process linting it {reason}. Its findings "
    "are missing until it is edited; please report the problem with the file that causes it"
)


@dataclass(frozen=True)
class DocumentSettings:
    """What applies to one path: its project's config and the rules enabled for it."""

    config: Config
    rule_codes: tuple[str, ...]
    lint_settings: LintSettings

    @property
    def root(self) -> Path:
        return self.config.root.resolve()


@dataclass(frozen=True)
class LintedDocument:
    """One version of a buffer and its findings (empty when its path is excluded).

    ``settings`` is None when the buffer takes no part in the project index (its config is
    broken, its path excluded or it is too large); ``exports`` is None when it could not be
    parsed.
    """

    source: str
    version: int | None
    diagnostics: tuple[Diagnostic, ...]
    deferred: tuple[DeferredFinding, ...] = ()
    exports: ExportSummary | None = None
    settings: DocumentSettings | None = None


def document_settings(path: Path) -> DocumentSettings:
    """The settings ``torchcheck lint path`` would use; ConfigError when they are invalid."""
    config = config_module.discover(path)
    rules = api.select_rules(api.LintOptions(), config)
    return DocumentSettings(config, _codes_for_path(path, config, rules), LintSettings(config.target_version))


def _codes_for_path(path: Path, config: Config, rules: tuple[RuleInfo, ...]) -> tuple[str, ...]:
    """The enabled rules minus those ``per-file-ignores`` turns off for ``path``."""
    try:
        relative = path.resolve().relative_to(config.root.resolve()).as_posix()
    except ValueError:
        relative = path.as_posix()
    ignored = [
        selector
        for pattern, selectors in config.per_file_ignores
        if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(path.name, pattern)
        for selector in selectors
    ]
    return tuple(rule.code for rule in rules if not any(registry.matches(selector, rule) for selector in ignored))


def is_excluded(path: Path, settings: DocumentSettings) -> bool:
    """Excludes apply to a file opened in an editor only with ``force-exclude``, as on the command line."""
    config = settings.config
    return config.force_exclude and files.excluded_with_parents(path, config.root, config.all_exclude)


@dataclass(frozen=True)
class Cell:
    """One cell of a notebook as an editor holds it."""

    source: str
    is_code: bool


def notebook_source(cells: Sequence[Cell]) -> str:
    """The notebook as the ``.ipynb`` text ``torchcheck lint`` reads: findings come back with
    the number of their cell, counted from 1 in ``cells``' order."""
    document = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [{"cell_type": "code" if cell.is_code else "markdown", "metadata": {}, "source": cell.source} for cell in cells],
    }
    return json.dumps(document)


def lint_document(source: str, path: Path, version: int | None = None, *, use_cache: bool = False) -> LintedDocument:
    """The findings ``torchcheck lint`` reports for ``path`` holding ``source``; never raises
    for bad input (a broken config or unparsable code becomes a TCK000 finding)."""
    name = api.display_name(path)
    try:
        settings = document_settings(path)
    except ConfigError as error:
        return LintedDocument(source, version, (api.file_problem(name, CONFIG_PROBLEM.format(error=error)),))
    if is_excluded(path, settings):
        return LintedDocument(source, version, ())
    content = source.encode("utf-8", errors="surrogatepass")
    if len(content) > settings.config.max_file_size:
        problem = TOO_LARGE.format(size=len(content), limit=settings.config.max_file_size)
        return LintedDocument(source, version, (api.file_problem(name, problem),))
    found = _findings(content, name, settings, use_cache)
    return LintedDocument(source, version, found.diagnostics, found.deferred, found.exports, settings)


def unanalysable(source: str, path: Path, version: int | None, reason: str) -> LintedDocument:
    """The buffer whose lint crashed the process that ran it: one TCK000 finding that says so."""
    return LintedDocument(source, version, (api.file_problem(api.display_name(path), CRASHED.format(reason=reason)),))


def _findings(content: bytes, name: str, settings: DocumentSettings, use_cache: bool) -> CachedFile:
    key = entry_key(name, content, settings_key(settings.rule_codes, settings.lint_settings))
    cached = FindingsCache(settings.root).get_file(key) if use_cache else None
    if cached is not None:
        return cached
    from torchcheck.lint.engine import lint_source  # only now: a cached file needs no parser

    rules = registry.rules_by_code(settings.rule_codes)
    if notebooks.is_notebook(name):
        result = notebooks.lint_notebook(content, name, rules, settings.lint_settings)
    else:
        result = lint_source(content, name, rules, settings.lint_settings)
    return CachedFile(result.diagnostics, result.deferred, result.exports)


def fix_all(source: str, path: Path) -> str | None:
    """``source`` with every safe fix applied, as ``torchcheck lint --fix`` would write it;
    None when nothing changes, the settings are invalid or the path is excluded."""
    from torchcheck.lint import writing
    from torchcheck.lint.engine import fix_source

    try:
        settings = document_settings(path)
    except ConfigError:
        return None
    if is_excluded(path, settings):
        return None
    content = source.encode("utf-8", errors="surrogatepass")
    rules = registry.rules_by_code(settings.rule_codes)
    result = fix_source(content, api.display_name(path), rules, settings=settings.lint_settings)
    if result.fixed_source is None:
        return None
    return writing.keep_line_endings(content, result.fixed_source).decode("utf-8", errors="surrogatepass")
