"""The linter's entry point: options in, findings (and fixed files) out.

Files are linted in parallel worker processes; the result is sorted so that output never
depends on scheduling or on ``PYTHONHASHSEED``. A run whose findings all come from the cache
imports neither libcst nor the rules: the engine is imported only to lint a file.

Findings that depend on another file (a model imported from ``model.py`` whose ``forward``
ends with a softmax) come back from each file as *deferred* findings, with the file's export
summary; once every file is linted or read from the cache, the project index decides which
of them stand (:mod:`torchcheck.lint.project`). Files that such a question needs but that
the run does not lint (``torchcheck lint train.py`` asking about ``model.py``) are
summarised too, from the cache when it has them.
"""

from __future__ import annotations

import contextlib
import fnmatch
import functools
import gc
import os
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from torchcheck import config as config_module
from torchcheck.config import Config, ConfigError
from torchcheck.lint import files as files_module
from torchcheck.lint import notebooks, registry
from torchcheck.lint.cache import FindingsCache, entry_key, settings_key
from torchcheck.lint.catalogue import RuleInfo, rule_infos
from torchcheck.lint.diagnostic import (
    SYNTAX_ERROR_CODE,
    SYNTAX_ERROR_NAME,
    Diagnostic,
    Location,
)
from torchcheck.lint.project import (
    DeferredFinding,
    ExportSummary,
    IndexedFile,
    ModuleLocator,
    ProjectIndex,
)
from torchcheck.lint.settings import LintSettings
from torchcheck.lint.stars import StarImports

if TYPE_CHECKING:
    from torchcheck.lint.engine import FileResult

# Below this many files to parse, starting worker processes costs more than it saves.
_PARALLEL_THRESHOLD = 8
# The most --jobs accepts: more is a typo or a fork storm, never a faster run.
MAX_JOBS = 1024
JOBS_OUT_OF_RANGE = "--jobs must be a whole number from 1 to {maximum}, got {jobs}"
# Rounds of reading the summaries of files outside the run that cross-file questions need
# (one more round per import hop: a transitive autocast flag, a re-export through __init__.py).
_MAX_SUMMARY_ROUNDS = 16  # each round reads only files no earlier round read


class UsageError(Exception):
    """The command line asks for something impossible (a path that does not exist)."""


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
    exclude: tuple[str, ...] | None = None  # replaces the config's exclude
    extend_exclude: tuple[str, ...] = ()
    force_exclude: bool = False  # excludes apply to files named explicitly, too
    add_noqa: bool = False
    stdin_filename: Path | None = None  # lint `stdin_source` as if it were this file
    stdin_source: bytes | None = None
    config_overrides: tuple[str, ...] = ()  # inline `--config "KEY = VALUE"` settings, over any file


@dataclass(frozen=True)
class LintResult:
    diagnostics: tuple[Diagnostic, ...]
    files_checked: int
    fixes_applied: int = 0
    fixed_files: tuple[str, ...] = ()
    diff: bytes = b""
    rules: tuple[RuleInfo, ...] = field(default=())
    # files that could not be written, each with the reason (the run went on)
    write_errors: tuple[str, ...] = ()
    noqa_added: int = 0
    fixed_stdin: bytes | None = None  # with stdin input and --fix: the fixed source


@dataclass(frozen=True)
class _Task:
    filename: str
    source: bytes
    rule_codes: tuple[str, ...]
    fix: bool
    unsafe: bool
    settings: LintSettings


def _run_task(task: _Task) -> FileResult:
    from torchcheck.lint.engine import fix_source, lint_source

    rules = registry.rules_by_code(task.rule_codes)
    if notebooks.is_notebook(task.filename):
        return notebooks.lint_notebook(task.source, task.filename, rules, task.settings, fix=task.fix, unsafe=task.unsafe)
    if task.fix:
        return fix_source(task.source, task.filename, rules, unsafe=task.unsafe, settings=task.settings)
    return lint_source(task.source, task.filename, rules, task.settings)


def _run_chunk(tasks: list[_Task]) -> list[FileResult]:
    """Lint files in a worker process, each within :data:`FILE_CPU_SECONDS`."""
    results = []
    for task in tasks:
        _limit_cpu_for_next_file()
        results.append(_run_task(task))
    return results


def _run_alone(task: _Task) -> FileResult:
    _limit_cpu_for_next_file()
    return _run_task(task)


def _validated(selectors: Sequence[str], origin: str) -> tuple[str, ...]:
    try:
        registry.validate_selectors(selectors)
    except registry.UnknownSelectorError as error:
        raise ConfigError(f"{origin}: unknown rule code or name {error.selector!r}") from None
    return tuple(selectors)


def select_rules(options: LintOptions, config: Config) -> tuple[RuleInfo, ...]:
    """The configured selection, then the command line's on top, as ruff layers them: a
    command-line ``--select`` starts afresh (the configured select, extend-select and ignore
    no longer count); without one, ``--extend-select`` and ``--ignore`` add to and remove
    from the configured rules, the more specific selector winning. Unknown codes raise
    ConfigError."""
    for origin, selectors in config_module.override_selectors(options.config_overrides):
        _validated(selectors, origin)
    _validated(config.select or (), config.origin)
    _validated([*config.extend_select, *config.ignore], config.origin)
    for _, codes in config.per_file_ignores:
        _validated(codes, f"{config.origin} (per-file-ignores)")
    extend = _validated(options.extend_select, "--extend-select")
    ignore = _validated(options.ignore, "--ignore")
    if options.select is not None:
        return registry.select_rules(_validated(options.select, "--select"), extend, ignore)
    configured = registry.select_rules(config.select, config.extend_select, config.ignore)
    added = registry.select_rules((), extend, ignore)  # named by a --extend-select that wins
    kept = registry.select_rules((registry.ALL_SELECTOR,), extend, ignore)  # not removed by --ignore
    return tuple(rule for rule in rule_infos() if rule in added or (rule in configured and rule in kept))


def display_name(path: Path) -> str:
    """How findings name a file: relative to the working directory, with ``..`` for a file
    outside it (as ruff names it); absolute only where no relative path leads there."""
    try:
        return Path(os.path.relpath(path, Path.cwd())).as_posix()
    except ValueError:  # another drive (Windows)
        return path.as_posix()


def _relative_to_root(path: Path, config: Config) -> str:
    try:
        return path.relative_to(config.root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def _rules_for_file(path: Path, config: Config, rules: tuple[RuleInfo, ...]) -> tuple[str, ...]:
    """Codes of the enabled rules minus those ``per-file-ignores`` turns off for ``path``."""
    if not config.per_file_ignores:
        return tuple(rule.code for rule in rules)
    relative = _relative_to_root(path, config)
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


def file_problem(filename: str, message: str) -> Diagnostic:
    """A TCK000 finding for a file that could not be linted at all."""
    location = Location(1, 1)
    return Diagnostic(filename, SYNTAX_ERROR_CODE, SYNTAX_ERROR_NAME, message, location, location)


def _unreadable(filename: str, error: OSError) -> Diagnostic:
    return file_problem(filename, f"cannot read file: {error.strerror or error}")


def _with_command_line(config: Config, options: LintOptions) -> Config:
    """The command line's ``--exclude``/``--extend-exclude``/``--force-exclude`` on top of the file's."""
    return replace(
        config,
        exclude=options.exclude if options.exclude is not None else config.exclude,
        extend_exclude=(*config.extend_exclude, *options.extend_exclude),
        force_exclude=config.force_exclude or options.force_exclude,
    )


def _config_for(path: Path, options: LintOptions) -> Config:
    if options.config_file is not None:
        config = config_module.load_file(options.config_file)
    else:
        config = config_module.discover(path)
    return _with_command_line(config_module.with_overrides(config, options.config_overrides), options)


# ----------------------------------------------------------------------------- execution


def _require_valid_jobs(jobs: int | None) -> None:
    if jobs is not None and not 1 <= jobs <= MAX_JOBS:
        raise UsageError(JOBS_OUT_OF_RANGE.format(maximum=MAX_JOBS, jobs=jobs))


def _usable_cpus() -> int:
    """The CPUs this process may run on (a container or ``taskset`` may allow fewer than exist)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def worker_count(jobs: int | None, files: int) -> int:
    """Worker processes for ``files`` files to lint: ``jobs`` (default: one per CPU), but never
    more than the CPUs nor than the files: a worker beyond either only costs a fork."""
    cpus = _usable_cpus()
    return max(1, min(jobs or cpus, cpus, files))


def _execute(tasks: list[_Task], jobs: int) -> list[FileResult]:
    if jobs <= 1 or len(tasks) < _PARALLEL_THRESHOLD:
        return [_run_task(task) for task in tasks]
    return _execute_in_pool(tasks, jobs)


def _chunks(tasks: list[_Task], jobs: int) -> Iterator[list[int]]:
    """Task indices in small chunks, the largest files first: a long file left for the end
    would keep one worker busy while the others wait."""
    largest_first = sorted(range(len(tasks)), key=lambda index: -len(tasks[index].source))
    size = max(1, len(tasks) // (jobs * 16))
    for start in range(0, len(tasks), size):
        yield largest_first[start : start + size]


# A worker's address space: the engine's screens keep real files far below (a parse of the
# largest file they let through takes about 2 GB); this stops a shape they miss from taking
# the machine's memory. The worker then fails (MemoryError, or an abort in the native parser)
# and its file is reported, like any worker that dies.
WORKER_ADDRESS_SPACE = 8 * 1024**3


def _limit_worker_memory() -> None:
    try:
        import resource
    except ImportError:  # not POSIX
        return
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = min([WORKER_ADDRESS_SPACE, *(bound for bound in (soft, hard) if bound != resource.RLIM_INFINITY)])
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError):  # a platform that does not enforce it (macOS)
        pass


# CPU time a worker may spend on one file; past it the kernel ends the worker, and the file is
# reported as too expensive to analyse. Real files take seconds; the screens of the engine
# catch the shapes known to be slow, and this bounds the ones they miss.
FILE_CPU_SECONDS = 300


def _limit_cpu_for_next_file() -> None:
    try:
        import resource
    except ImportError:  # not POSIX
        return
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    limit = int(usage.ru_utime + usage.ru_stime) + FILE_CPU_SECONDS + 1
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (limit, hard))
    except (ValueError, OSError):
        pass


def _prepare_worker() -> None:
    """A worker builds and drops millions of tree nodes, none of them in reference cycles;
    the collector's default thresholds would traverse them thousands of times for nothing
    (measured: 5-7% of a parse). Objects imported before the first file are never garbage.
    Its memory is bounded (:data:`WORKER_ADDRESS_SPACE`)."""
    _limit_worker_memory()
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)


def _start_worker(initializer: Callable[[], None]) -> None:
    # Ctrl-C is the parent's to handle: it kills the workers (see _worker_pool).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    initializer()


@contextlib.contextmanager
def _worker_pool(workers: int, initializer: Callable[[], None]) -> Iterator[ProcessPoolExecutor]:
    """Worker processes that Ctrl-C (or any error) stops at once: they are killed, not
    waited for, since a worker finishes its files before it looks at the queue again."""
    executor = ProcessPoolExecutor(max_workers=workers, initializer=functools.partial(_start_worker, initializer))
    try:
        yield executor
    except BaseException:
        _kill_workers(executor)
        raise
    executor.shutdown()


_killed_pools: list[ProcessPoolExecutor] = []


def exit_at_once_if_workers_were_killed(code: int) -> None:
    """Exit with ``code`` without joining the threads of a worker pool that was killed: a
    worker killed while it wrote its result leaves the pool's manager thread waiting forever
    for the rest, and a normal interpreter exit joins that thread (measured: one Ctrl-C in
    about twenty hung). Output is flushed first; nothing else is left to finish."""
    if not _killed_pools:
        return
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


def _kill_workers(executor: ProcessPoolExecutor) -> None:
    _killed_pools.append(executor)
    terminate = getattr(executor, "terminate_workers", None)  # Python 3.14
    if terminate is not None:
        terminate()
        return
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(timeout=1)
        if process.is_alive():
            process.kill()


def _import_engine_for_forked_workers() -> None:
    """Import the engine, libcst and the rules here, once, before forked workers start: they
    inherit them instead of each importing them again (measured: 5% of a cold lint's CPU
    time on timm with two workers; the saving grows with the workers). Only a run that
    parses files in a pool gets here; workers that are not forked import for themselves."""
    import multiprocessing

    if (multiprocessing.get_start_method(allow_none=True) or multiprocessing.get_all_start_methods()[0]) == "fork":
        from torchcheck.lint import engine  # noqa: F401 - imported for the workers to inherit

        registry.all_rules()


def _execute_in_pool(tasks: list[_Task], jobs: int) -> list[FileResult]:
    """Lint in worker processes. A worker that dies (the native parser can crash on absurd
    input) takes down only its own files: those are re-run one per process, and the file
    that kills its process is reported, never the whole run."""
    results: dict[int, FileResult] = {}
    lost: list[int] = []
    _import_engine_for_forked_workers()
    with _worker_pool(jobs, _prepare_worker) as executor:
        futures = []
        for indices in _chunks(tasks, jobs):
            try:
                futures.append((indices, executor.submit(_run_chunk, [tasks[i] for i in indices])))
            except BrokenProcessPool:  # a worker died while later chunks were still being handed out
                lost.extend(indices)
        for indices, future in futures:
            try:
                results.update(zip(indices, future.result()))
            except BrokenProcessPool:
                lost.extend(indices)
    for index in lost:
        results[index] = _run_isolated(tasks[index])
    return [results[index] for index in range(len(tasks))]


def _run_isolated(task: _Task) -> FileResult:
    from torchcheck.lint.engine import FileResult

    try:
        with _worker_pool(1, _limit_worker_memory) as executor:
            return executor.submit(_run_alone, task).result()
    except BrokenProcessPool:
        message = (
            "too expensive to analyse: the process linting this file died (the parser crashed, "
            f"ran out of memory, or spent more than {FILE_CPU_SECONDS} s of CPU on it)"
        )
        return FileResult((file_problem(task.filename, message),))


# ----------------------------------------------------------------------------- the run


@dataclass
class _Project:
    """What the run knows for the project index: each file's export summary and deferred
    findings, keyed by the file's absolute path, and the settings of each project root (to
    summarise files outside the run that a question needs)."""

    files: dict[str, IndexedFile] = field(default_factory=dict)
    deferred: dict[str, tuple[DeferredFinding, ...]] = field(default_factory=dict)
    root_of: dict[str, Path] = field(default_factory=dict)
    roots: dict[Path, tuple[Config, LintSettings, FindingsCache | None]] = field(default_factory=dict)
    _locators: dict[Path, ModuleLocator] = field(default_factory=dict)
    _star_readers: dict[Path, StarImports] = field(default_factory=dict)
    index: ProjectIndex | None = None

    def add(self, path: Path, name: str, root: Path, exports: ExportSummary | None, deferred: Sequence[DeferredFinding]) -> None:
        key = path.as_posix()
        self.root_of[key] = root
        if exports is not None:
            self.files[key] = IndexedFile(name, exports)
        if deferred:
            self.deferred[key] = tuple(deferred)

    def locate(self, importer: str, module: str, level: int) -> str | None:
        root = self.root_of.get(importer)
        if root is None:
            return None
        found = self._locator(root)(importer, module, level)
        if found is not None:
            self.root_of.setdefault(found, root)
        return found

    def _locator(self, root: Path) -> ModuleLocator:
        locator = self._locators.get(root)
        if locator is None:
            locator = self._locators[root] = ModuleLocator(root)
        return locator

    def with_star_imports(self, settings: LintSettings, path: Path, root: Path, content: bytes) -> LintSettings:
        """``settings`` for the file at ``path``, with what its star imports of the project's
        modules bind."""
        reader = self._star_readers.get(root)
        if reader is None:
            reader = self._star_readers[root] = StarImports(self._locator(root), _bytes_or_none)
        stars = reader.of(path.as_posix(), content)
        return replace(settings, star_imports=stars) if stars else settings

    def resolve(self, key: str, findings: Sequence[DeferredFinding]) -> tuple[Diagnostic, ...]:
        """The findings of one file that stand in the index built by :func:`_resolve_project`."""
        if self.index is None:
            return ()
        return tuple(diagnostic for finding in findings if (diagnostic := self.index.resolve(key, finding)) is not None)


@dataclass
class _Run:
    """What one lint run has gathered so far."""

    options: LintOptions
    diagnostics: list[Diagnostic] = field(default_factory=list)
    caches: dict[Path, FindingsCache] = field(default_factory=dict)
    files_checked: int = 0
    rules: tuple[RuleInfo, ...] = ()
    project: _Project = field(default_factory=_Project)

    @property
    def fixing(self) -> bool:
        return self.options.fix or self.options.diff

    def cache_for(self, config: Config) -> FindingsCache | None:
        if not self.options.use_cache or self.fixing or self.options.add_noqa:
            return None
        root = config.root.resolve()
        if root not in self.caches:
            self.caches[root] = FindingsCache(root)
        return self.caches[root]


@dataclass(frozen=True)
class _Pending:
    path: Path
    task: _Task
    key: str
    cache: FindingsCache | None
    root: Path
    write_roots: tuple[Path, ...] | None = None  # where a fix may write it; None: standard input

    @property
    def writable(self) -> bool:
        """False for a link to a file outside the linted tree; asked only of files written."""
        return self.write_roots is None or files_module.resolves_inside(self.path, self.write_roots)


def _bytes_or_none(path: str) -> bytes | None:
    try:
        return Path(path).read_bytes()
    except OSError:
        return None


def _too_large(path: Path, config: Config) -> str | None:
    try:
        size = path.stat().st_size
    except OSError:
        return None  # reading it will report why
    if size <= config.max_file_size:
        return None
    return f"file is {size:,} bytes, larger than max-file-size ({config.max_file_size:,} bytes); not linted"


def _files_of(run: _Run, path: Path, config: Config, stdin: bool) -> tuple[Path, ...]:
    """The files to lint for one named path; what cannot be linted is reported into ``run``."""
    if stdin:
        if config.force_exclude and files_module.excluded_with_parents(path, config.root, config.all_exclude):
            return ()
        return (path,)
    found = files_module.discover(
        [path], config.root, config.all_exclude, force_exclude=config.force_exclude, include=config.all_include
    )
    for problem in found.problems:
        run.files_checked += 1
        run.diagnostics.append(file_problem(display_name(problem.path), problem.reason))
    return found.files


def _write_roots(path: Path, config: Config) -> tuple[Path, ...]:
    """Where ``--fix`` may write for one named path: inside it (or beside a named file) or the project."""
    named = files_module.absolute(path)
    return (named if named.is_dir() else named.parent, config.root)


def index_root(path: Path, config: Config) -> Path:
    """Where imports of the files under a named path are looked for: the project root, or
    the named directory when it lies outside the project (``torchcheck lint ~/other``)."""
    named = files_module.absolute(path)
    directory = named if named.is_dir() else named.parent
    root = files_module.absolute(config.root)
    return root if directory == root or root in directory.parents else directory


def _gather(run: _Run, path: Path, source: bytes | None = None) -> list[_Pending]:
    """Cached findings go straight into ``run``; the rest become tasks."""
    options = run.options
    config = _config_for(path, options)
    rules = select_rules(options, config)
    run.rules = run.rules or rules
    settings = _settings(options, config)
    cache = run.cache_for(config)
    roots = _write_roots(path, config)
    root = index_root(path, config)
    run.project.roots.setdefault(root, (config, settings, cache))
    pending = []
    for file in _files_of(run, path, config, stdin=source is not None):
        run.files_checked += 1
        name = display_name(file)
        problem = _too_large(file, config) if source is None else None
        if problem is not None:
            run.diagnostics.append(file_problem(name, problem))
            continue
        try:
            content = source if source is not None else file.read_bytes()
        except OSError as error:
            run.diagnostics.append(_unreadable(name, error))
            continue
        codes = _rules_for_file(file, config, rules)
        file_settings = run.project.with_star_imports(settings, file, root, content)
        key = entry_key(name, content, settings_key(codes, file_settings))
        cached = cache.get_file(key) if cache is not None else None
        if cached is not None:
            run.diagnostics.extend(cached.diagnostics)
            run.project.add(file, name, root, cached.exports, cached.deferred)
            continue
        task = _Task(name, content, codes, run.fixing, options.unsafe_fixes, file_settings)
        pending.append(_Pending(file, task, key, cache, root, None if source is not None else roots))
    return pending


def _require_existing(paths: Sequence[Path]) -> None:
    missing = files_module.missing_paths(paths)
    if missing:
        raise UsageError(f"{display_name(missing[0])}: no such file or directory")


def _pending_files(run: _Run) -> list[_Pending]:
    options = run.options
    if options.stdin_source is not None:
        assert options.stdin_filename is not None
        return _gather(run, options.stdin_filename.absolute(), options.stdin_source)
    _require_existing(options.paths)
    pending: list[_Pending] = []
    seen: set[Path] = set()
    for path in options.paths:
        for item in _gather(run, path):
            if item.path not in seen:
                seen.add(item.path)
                pending.append(item)
    return pending


def lint(options: LintOptions) -> LintResult:
    """Lint (and with ``fix``/``diff`` fix, or with ``add_noqa`` suppress) every Python file
    under ``options.paths``, or the standard input given as ``stdin_source``."""
    _require_valid_jobs(options.jobs)
    run = _Run(options)
    pending = _pending_files(run)
    results = _execute([item.task for item in pending], worker_count(options.jobs, len(pending)))
    for item, result in zip(pending, results):
        if item.cache is not None:
            item.cache.put(item.key, result.diagnostics, result.deferred, result.exports, path=item.path)
        run.project.add(item.path, item.task.filename, item.root, result.exports, result.deferred)
    cross_file = _resolve_project(run)
    outcome = _Outcome()
    for item, result in zip(pending, results):
        standing = replace(result, diagnostics=(*result.diagnostics, *cross_file.pop(item.path.as_posix(), ())))
        run.diagnostics.extend(_apply(item, standing, run, outcome))
    for diagnostics in cross_file.values():  # files read from the cache
        run.diagnostics.extend(diagnostics)
    if _fixing_stdin(options) and outcome.fixed_stdin is None:
        outcome.fixed_stdin = options.stdin_source  # excluded: printed back unchanged
    for cache in run.caches.values():
        cache.save()
    run.diagnostics.sort(key=lambda d: d.sort_key)
    return LintResult(
        diagnostics=tuple(run.diagnostics),
        files_checked=run.files_checked,
        fixes_applied=outcome.fixes_applied,
        fixed_files=tuple(outcome.fixed_files),
        diff=b"".join(outcome.patches),
        rules=run.rules,
        write_errors=tuple(outcome.write_errors),
        noqa_added=outcome.noqa_added,
        fixed_stdin=outcome.fixed_stdin,
    )


def _resolve_project(run: _Run) -> dict[str, tuple[Diagnostic, ...]]:
    """The deferred findings that stand, per file. Files outside the run that a condition
    needs are summarised (from the cache when it has them) and the conditions asked again."""
    project = run.project
    if not project.deferred:
        return {}
    tried: set[str] = set()
    for _ in range(_MAX_SUMMARY_ROUNDS):
        project.index = ProjectIndex(project.files, project.locate)
        standing = {key: project.resolve(key, findings) for key, findings in project.deferred.items()}
        missing = sorted(project.index.missing - tried)
        if not missing:
            break
        tried.update(missing)
        for key in missing:
            _summarise_outside_run(project, key)
    return {key: diagnostics for key, diagnostics in standing.items() if diagnostics}


def _summarise_outside_run(project: _Project, key: str) -> None:
    """Add the export summary of a project file the run does not lint; unreadable or
    too large files stay unknown (their conditions do not hold)."""
    path = Path(key)
    root = project.root_of.get(key)
    if root is None or root not in project.roots:
        return
    config, settings, cache = project.roots[root]
    content = _bytes_or_none(key)
    if content is not None:
        settings = project.with_star_imports(settings, path, root, content)
    indexed = read_summary(path, config, settings, cache, store=True)
    project.add(path, display_name(path), root, indexed.exports if indexed is not None else None, ())


def read_summary(
    path: Path,
    config: Config,
    settings: LintSettings,
    cache: FindingsCache | None,
    *,
    rule_codes: tuple[str, ...] = (),
    store: bool = False,
) -> IndexedFile | None:
    """The export summary of the file at ``path`` as saved, for the project index: from the
    cache when it holds this content (linted with ``rule_codes``, or summarised before),
    else parsed (and with ``store``, kept in the cache). None when the file cannot be
    read or is larger than ``max-file-size``; an unparsable file has no exports."""
    if _too_large(path, config) is not None:
        return None
    try:
        content = path.read_bytes()
    except OSError:
        return None
    name = display_name(path)
    summary_key = entry_key(name, content, settings_key(("exports",), settings))
    keys = (entry_key(name, content, settings_key(rule_codes, settings)), summary_key) if rule_codes else (summary_key,)
    for key in keys:
        cached = cache.get_file(key) if cache is not None else None
        if cached is not None and (cached.exports is not None or key == summary_key):
            return IndexedFile(name, cached.exports) if cached.exports is not None else None
    from torchcheck.lint.engine import export_summary

    exports = export_summary(content, name, settings)
    if cache is not None and store:
        cache.put(summary_key, (), (), exports, path=path)
    return IndexedFile(name, exports) if exports is not None else None


def _fixing_stdin(options: LintOptions) -> bool:
    return options.stdin_source is not None and options.fix and not options.diff


@dataclass
class _Outcome:
    """What a run changed, or would change."""

    fixes_applied: int = 0
    fixed_files: list[str] = field(default_factory=list)
    patches: list[bytes] = field(default_factory=list)
    write_errors: list[str] = field(default_factory=list)
    noqa_added: int = 0
    fixed_stdin: bytes | None = None


def _apply(item: _Pending, result: FileResult, run: _Run, outcome: _Outcome) -> tuple[Diagnostic, ...]:
    """Write, print or return what ``result`` changes in one file; the findings that stand."""
    from torchcheck.lint import diffs, writing

    options = run.options
    task = item.task
    if _fixing_stdin(options):
        outcome.fixed_stdin = writing.keep_line_endings(task.source, result.fixed_source or task.source)
        outcome.fixes_applied += result.fixes_applied
        return result.diagnostics
    if options.add_noqa:
        return _add_noqa(item, result, outcome)
    if result.fixed_source is None:
        return result.diagnostics
    fixed = writing.keep_line_endings(task.source, result.fixed_source)
    if options.diff:
        outcome.patches.append(diffs.unified_diff(task.filename, task.source, fixed))
        outcome.fixes_applied += result.fixes_applied
        return result.diagnostics
    return _write_fixed(item, fixed, result, outcome, run.project)


def _write_fixed(item: _Pending, fixed: bytes, result: FileResult, outcome: _Outcome, project: _Project) -> tuple[Diagnostic, ...]:
    from torchcheck.lint import writing

    try:
        if not item.writable:
            raise PermissionError("it is a link to a file outside the linted tree")
        writing.write_atomically(item.path, fixed, expected=item.task.source)
    except OSError as error:
        outcome.write_errors.append(f"{item.task.filename}: not fixed: {_why_not_written(error)}")
        unchanged = _run_task(replace(item.task, fix=False))  # the findings of the file as read
        return (*unchanged.diagnostics, *project.resolve(item.path.as_posix(), unchanged.deferred))
    outcome.fixed_files.append(item.task.filename)
    outcome.fixes_applied += result.fixes_applied
    return result.diagnostics


def _why_not_written(error: OSError) -> str:
    """The reason alone: the message already names the file as the user named it."""
    return getattr(error, "reason", None) or str(error)


def _add_noqa(item: _Pending, result: FileResult, outcome: _Outcome) -> tuple[Diagnostic, ...]:
    from torchcheck.lint import noqa, writing

    findings = [(d.location.row, d.code) for d in result.diagnostics if d.code != SYNTAX_ERROR_CODE]
    if not findings:
        return result.diagnostics
    if notebooks.is_notebook(item.task.filename):
        source, added = notebooks.add_noqa(item.task.source, result.diagnostics)
    else:
        source, added = noqa.add_noqa(item.task.source, findings)
    if not added:
        return result.diagnostics
    try:
        if not item.writable:
            raise PermissionError("it is a link to a file outside the linted tree")
        writing.write_atomically(item.path, source, expected=item.task.source)
    except OSError as error:
        outcome.write_errors.append(f"{item.task.filename}: noqa not added: {_why_not_written(error)}")
        return result.diagnostics
    outcome.noqa_added += added
    return tuple(d for d in result.diagnostics if d.code == SYNTAX_ERROR_CODE)


def files_to_lint(options: LintOptions) -> list[str]:
    """The files a run with these options would lint (``--show-files``), sorted."""
    _require_existing(options.paths)
    names: set[str] = set()
    for path in options.paths:
        config = _config_for(path, options)
        found = files_module.discover(
            [path], config.root, config.all_exclude, force_exclude=config.force_exclude, include=config.all_include
        )
        names.update(display_name(file) for file in found.files)
    return sorted(names)


def describe_settings(options: LintOptions) -> str:
    """The settings that apply to the first path (``--show-settings``), one per line."""
    path = options.stdin_filename or options.paths[0]
    config = _config_for(path, options)
    rules = select_rules(options, config)
    settings = _settings(options, config)
    version = ".".join(map(str, settings.target_version)) if settings.target_version else "any"
    if settings.target_version is not None and settings.target_version == config.target_version and config.target_version_declared_in is not None:
        version += f" (the torch requirement in {config.target_version_declared_in})"
    lines = [
        f"path: {display_name(path.absolute())}",
        f"config file: {config.source or '(none: defaults)'}",
        f"project root: {config.root}",
        f"target-version: {version}",
        f"exclude: {', '.join(config.exclude)}",
        f"extend-exclude: {', '.join(config.extend_exclude) or '(none)'}",
        f"include: {', '.join(config.all_include)}",
        f"force-exclude: {str(config.force_exclude).lower()}",
        f"per-file-ignores: {', '.join(f'{p} = {list(c)}' for p, c in config.per_file_ignores) or '(none)'}",
        f"max-file-size: {config.max_file_size:,} bytes",
        f"cache: {'off' if not options.use_cache else config.root / '.torchcheck_cache'}",
        f"rules ({len(rules)}): {', '.join(rule.code for rule in rules)}",
    ]
    return "\n".join(lines) + "\n"
