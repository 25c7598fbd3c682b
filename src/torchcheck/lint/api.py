"""The linter's entry point: options in, findings (and fixed files) out.

Files are linted in parallel worker processes; the result is sorted so that output never
depends on scheduling or on ``PYTHONHASHSEED``.
"""

from __future__ import annotations

import difflib
import fnmatch
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from torchcheck import config as config_module
from torchcheck.config import Config, ConfigError
from torchcheck.lint import registry
from torchcheck.lint.cache import FindingsCache, entry_key, settings_key
from torchcheck.lint.context import LintSettings
from torchcheck.lint.diagnostic import SYNTAX_ERROR_CODE, SYNTAX_ERROR_NAME, Diagnostic, Location
from torchcheck.lint.engine import FileResult, fix_source, lint_source
from torchcheck.lint.files import discover_files
from torchcheck.lint.rule import Rule

# Below this many files to parse, starting worker processes costs more than it saves.
_PARALLEL_THRESHOLD = 8


@dataclass(frozen=True)
class LintOptions:
    paths: tuple[Path, ...] = (Path("."),)
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    config_file: Path | None = None
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    use_cache: bool = True
    jobs: int | None = None
    target_version: str | None = None  # overrides the config's target-version


@dataclass(frozen=True)
class LintResult:
    diagnostics: tuple[Diagnostic, ...]
    files_checked: int
    fixes_applied: int = 0
    fixed_files: tuple[str, ...] = ()
    diff: str = ""
    rules: tuple[type[Rule], ...] = field(default=())


@dataclass(frozen=True)
class _Task:
    filename: str
    source: bytes
    rule_codes: tuple[str, ...]
    fix: bool
    unsafe: bool
    settings: LintSettings


def _run_task(task: _Task) -> FileResult:
    by_code = {rule.code: rule for rule in registry.all_rules()}
    rules = [by_code[code] for code in task.rule_codes]
    if task.fix:
        return fix_source(task.source, task.filename, rules, unsafe=task.unsafe, settings=task.settings)
    return lint_source(task.source, task.filename, rules, task.settings)


def _validated(selectors: Sequence[str], origin: str) -> tuple[str, ...]:
    try:
        registry.validate_selectors(selectors)
    except registry.UnknownSelectorError as error:
        raise ConfigError(f"{origin}: unknown rule code or name {error.selector!r}") from None
    return tuple(selectors)


def select_rules(options: LintOptions, config: Config) -> tuple[type[Rule], ...]:
    """Config settings overridden by the command line; unknown codes raise ConfigError."""
    _validated(config.select or (), config.origin)
    _validated([*config.extend_select, *config.ignore], config.origin)
    for _, codes in config.per_file_ignores:
        _validated(codes, f"{config.origin} (per-file-ignores)")
    select = _validated(options.select, "--select") if options.select is not None else config.select
    extend = (*config.extend_select, *_validated(options.extend_select, "--extend-select"))
    ignore = (*config.ignore, *_validated(options.ignore, "--ignore"))
    return registry.select_rules(select, extend, ignore)


def _display_name(path: Path) -> str:
    try:
        return path.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path.as_posix()


def _rules_for_file(path: Path, config: Config, rules: tuple[type[Rule], ...]) -> tuple[str, ...]:
    """Codes of the enabled rules minus those ``per-file-ignores`` turns off for ``path``."""
    try:
        relative = path.relative_to(config.root.resolve()).as_posix()
    except ValueError:
        relative = path.as_posix()
    ignored = [
        selector
        for pattern, selectors in config.per_file_ignores
        if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(path.name, pattern)
        for selector in selectors
    ]
    return tuple(rule.code for rule in rules if not any(registry.matches(selector, rule) for selector in ignored))


def _settings(options: LintOptions, config: Config) -> LintSettings:
    if options.target_version is not None:
        return LintSettings(config_module.parse_target_version(options.target_version, "--target-version"))
    return LintSettings(config.target_version)


def _unreadable(filename: str, error: OSError) -> Diagnostic:
    location = Location(1, 1)
    reason = error.strerror or str(error)
    return Diagnostic(filename, SYNTAX_ERROR_CODE, SYNTAX_ERROR_NAME, f"cannot read file: {reason}", location, location)


def _config_for(path: Path, options: LintOptions) -> Config:
    if options.config_file is not None:
        return config_module.load_file(options.config_file)
    return config_module.discover(path)


def _execute(tasks: list[_Task], jobs: int) -> list[FileResult]:
    if jobs <= 1 or len(tasks) < _PARALLEL_THRESHOLD:
        return [_run_task(task) for task in tasks]
    chunk = max(1, len(tasks) // (jobs * 8))
    with ProcessPoolExecutor(max_workers=jobs) as executor:
        return list(executor.map(_run_task, tasks, chunksize=chunk))


def lint(options: LintOptions) -> LintResult:
    """Lint (and with ``fix``/``diff`` fix) every Python file under ``options.paths``."""
    jobs = options.jobs or os.cpu_count() or 1
    fixing = options.fix or options.diff
    diagnostics: list[Diagnostic] = []
    fixed: list[str] = []
    diffs: list[str] = []
    fixes_applied = files_checked = 0
    all_rules: tuple[type[Rule], ...] = ()
    for path in options.paths:
        config = _config_for(path, options)
        all_rules = select_rules(options, config)
        settings = _settings(options, config)
        cache = FindingsCache(config.root) if options.use_cache and not fixing else None
        pending: list[tuple[Path, _Task, str]] = []
        used_keys: set[str] = set()
        for file in dict.fromkeys(discover_files([path], config.root, config.all_exclude)):
            files_checked += 1
            name = _display_name(file)
            try:
                source = file.read_bytes()
            except OSError as error:
                diagnostics.append(_unreadable(name, error))
                continue
            codes = _rules_for_file(file, config, all_rules)
            key = entry_key(name, source, settings_key(codes, settings))
            cached = cache.get(key) if cache is not None else None
            if cached is not None:
                used_keys.add(key)
                diagnostics.extend(cached)
                continue
            pending.append((file, _Task(name, source, codes, fixing, options.unsafe_fixes, settings), key))
        results = _execute([task for _, task, _ in pending], jobs)
        for (file, task, key), result in zip(pending, results):
            if cache is not None:
                cache.put(key, result.diagnostics)
                used_keys.add(key)
            diagnostics.extend(result.diagnostics)
            if result.fixed_source is not None:
                fixes_applied += result.fixes_applied
                if options.diff:
                    diffs.append(_unified_diff(task.filename, task.source, result.fixed_source))
                else:
                    file.write_bytes(result.fixed_source)
                    fixed.append(task.filename)
        if cache is not None:
            cache.save(used_keys)
    diagnostics.sort(key=lambda d: d.sort_key)
    return LintResult(tuple(diagnostics), files_checked, fixes_applied, tuple(fixed), "".join(diffs), all_rules)


def _unified_diff(filename: str, before: bytes, after: bytes) -> str:
    old = before.decode("utf-8", "replace").splitlines(keepends=True)
    new = after.decode("utf-8", "replace").splitlines(keepends=True)
    return "".join(difflib.unified_diff(old, new, fromfile=f"a/{filename}", tofile=f"b/{filename}"))
