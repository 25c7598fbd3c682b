"""Which files to lint: recurse into directories, honour excludes, ``.gitignore`` and ``.git/info/exclude``.

Discovery never raises for what it finds on disk: a symbolic link loop, a broken link, a
directory it may not read or a FIFO named ``x.py`` becomes a :class:`FileProblem` and the walk
goes on. Paths are yielded absolute but *not* resolved, so a link is reported under the name
the user knows; resolve only to compare (:func:`resolves_inside`).

Imports only the standard library: this runs on the fast path of a fully cached run.
"""

from __future__ import annotations

import errno
import fnmatch
import functools
import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

# What a directory walk lints unless told otherwise; config.DEFAULT_INCLUDE is the same
# (this module imports nothing from the package, to stay on the fast path).
DEFAULT_INCLUDE = ("*.py", "*.pyi", "*.ipynb")

SYMLINK_LOOP = "symbolic link loop"
BROKEN_SYMLINK = "broken symbolic link (its target {target} does not exist)"
NOT_A_REGULAR_FILE = "not a regular file"
CANNOT_ACCESS = "cannot access: {reason}"
CANNOT_READ_DIRECTORY = "cannot read directory: {reason}"
NO_SUCH_PATH = "{path}: no such file or directory"


@dataclass(frozen=True)
class FileProblem:
    """Something on disk that cannot be linted; ``path`` is the name the user gave or the walk found."""

    path: Path
    reason: str


@dataclass(frozen=True)
class Discovered:
    """Files to lint, in a stable order, and what was skipped on the way."""

    files: tuple[Path, ...]
    problems: tuple[FileProblem, ...] = ()


class MissingPathError(Exception):
    """A path named on the command line does not exist: a usage error, not a finding."""

    def __init__(self, paths: Iterable[Path]) -> None:
        self.paths = tuple(paths)
        super().__init__("\n".join(NO_SUCH_PATH.format(path=path) for path in self.paths))


def missing_paths(paths: Iterable[Path]) -> tuple[Path, ...]:
    """The ``paths`` that name nothing at all; a broken symbolic link still names a link."""
    return tuple(path for path in paths if not _names_something(path))


def require_existing(paths: Iterable[Path]) -> None:
    """Raise :class:`MissingPathError` naming every path in ``paths`` that does not exist."""
    missing = missing_paths(paths)
    if missing:
        raise MissingPathError(missing)


def _names_something(path: Path) -> bool:
    """Whether anything is there, even a broken link or a directory entry we may not look at."""
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError, ValueError):  # ValueError: an embedded NUL byte
        return False
    except OSError:
        return True
    return True


def absolute(path: Path) -> Path:
    """``path`` made absolute without following symbolic links (``..`` is folded lexically)."""
    return Path(os.path.abspath(path))


def _resolved(path: Path, strict: bool = False) -> Path | None:
    try:
        return path.resolve(strict=strict)
    except (OSError, RuntimeError):  # RuntimeError: a symbolic link loop on Python < 3.13
        return None


def project_relative(path: Path, root: Path) -> str | None:
    """``path`` relative to ``root`` as a POSIX string, or None when it lies outside ``root``.

    Tried first as spelled, then with the symbolic links of both parent directories followed,
    so that ``link/a.py`` with ``link -> project`` is still inside ``project``.
    """
    spelled, spelled_root = absolute(path), absolute(root)
    if spelled.is_relative_to(spelled_root):
        return spelled.relative_to(spelled_root).as_posix()
    real_parent, real_root = _resolved(spelled.parent), _resolved(spelled_root)
    if real_parent is None or real_root is None:
        return None
    real = real_parent / spelled.name
    return real.relative_to(real_root).as_posix() if real.is_relative_to(real_root) else None


def resolves_inside(path: Path, roots: Iterable[Path]) -> bool:
    """Whether writing ``path`` writes inside one of ``roots``, every symbolic link followed.

    Pass the paths named on the command line and the project root. A link whose target lies
    elsewhere answers False, and so does one that cannot be resolved (a loop, a broken link):
    ``--fix`` must not write through it.
    """
    target = _resolved(absolute(path), strict=True)
    if target is None:
        return False
    for root in roots:
        real_root = _resolved(absolute(root))
        if real_root is not None and target.is_relative_to(real_root):
            return True
    return False


@dataclass(frozen=True)
class _IgnorePattern:
    prefix: str  # the directory the pattern is relative to, ending with a separator
    regex: re.Pattern[str]
    negated: bool
    directory_only: bool


def _glob_to_regex(pattern: str) -> str:
    out, index = [], 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
            continue
        if pattern.startswith("/**", index) and index + 3 == len(pattern):
            out.append("/.*")
            index += 3
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find("]", index + 1)
            if end == -1:
                out.append(re.escape(char))
            else:
                out.append(pattern[index : end + 1].replace("[!", "[^"))
                index = end
        elif char == "\\" and index + 1 < len(pattern):
            index += 1
            out.append(re.escape(pattern[index]))
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)


def _parse_gitignore(path: Path, base: str) -> list[_IgnorePattern]:
    """Patterns of one ignore file; they are relative to ``base``. An unreadable file ignores nothing."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    patterns = []
    for raw in lines:
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        if negated:
            line = line[1:]
        directory_only = line.endswith("/")
        line = line.rstrip("/")
        anchored = "/" in line
        line = line.lstrip("/")
        body = _glob_to_regex(line)
        try:
            regex = re.compile(("" if anchored else "(?:.*/)?") + body + "$")
        except re.error:  # a malformed character class: git ignores the line too
            continue
        patterns.append(_IgnorePattern(os.path.join(base, ""), regex, negated, directory_only))
    return patterns


def _is_file(path: Path) -> bool:
    """``Path.is_file`` that answers False instead of raising (PermissionError, a name too long)."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


class GitIgnore:
    """The ``.gitignore`` files that apply under one repository, loaded as directories are entered.

    Paths are compared as strings: the walk asks about every entry, and building a ``Path``
    for each one cost more than the rest of the walk together.
    """

    def __init__(self) -> None:
        self._patterns: list[_IgnorePattern] = []
        self._loaded: set[str] = set()

    def enter(self, directory: str | Path) -> None:
        directory = os.fspath(directory)
        if directory in self._loaded:
            return
        self._loaded.add(directory)
        gitignore = Path(directory, ".gitignore")
        if _is_file(gitignore):
            self._patterns.extend(_parse_gitignore(gitignore, directory))

    def enter_ancestors(self, directory: Path) -> None:
        """Load ``.git/info/exclude`` and the ``.gitignore`` files from the repository root down to ``directory``."""
        chain = [directory, *directory.parents]
        root_index = next((i for i, d in enumerate(chain) if _names_something(d / ".git")), None)
        if root_index is None:
            self.enter(directory)
            return
        repository = chain[root_index]
        # Loaded first, so that any .gitignore overrides it, as in git.
        info_exclude = repository / ".git" / "info" / "exclude"
        if _is_file(info_exclude):
            self._patterns.extend(_parse_gitignore(info_exclude, os.fspath(repository)))
        for ancestor in reversed(chain[: root_index + 1]):
            self.enter(ancestor)

    def ignores(self, path: str | Path, is_directory: bool) -> bool:
        text = os.fspath(path)
        ignored = False
        for pattern in self._patterns:
            if (pattern.directory_only and not is_directory) or not text.startswith(pattern.prefix):
                continue
            relative = text[len(pattern.prefix) :]
            if pattern.regex.match(relative if os.sep == "/" else relative.replace(os.sep, "/")):
                ignored = not pattern.negated
        return ignored


@functools.lru_cache(maxsize=64)
def _exclusion_regex(exclude: tuple[str, ...]) -> re.Pattern[str]:
    """All patterns as one regex: the walk tests every entry, and one match beats a loop of fnmatch calls."""
    if not exclude:
        return re.compile(r"(?!)")
    return re.compile("|".join(fnmatch.translate(os.path.normcase(pattern)) for pattern in exclude))


def _matches(name: str, relative: str, exclude: Iterable[str]) -> bool:
    regex = _exclusion_regex(tuple(exclude))
    return regex.match(os.path.normcase(name)) is not None or regex.match(os.path.normcase(relative)) is not None


def excluded_with_parents(path: Path, root: Path, exclude: Iterable[str]) -> bool:
    """Whether a pattern matches ``path`` or one of its parent directories below ``root``.

    Parents above ``root`` are never tested: ``exclude = ["build"]`` must not exclude a project
    that happens to live in ``~/build/``.
    """
    exclude = tuple(exclude)
    relative = project_relative(path, root)
    if relative is None:
        return _matches(path.name, path.as_posix(), exclude)
    parts = PurePosixPath(relative).parts
    return any(_matches(parts[depth - 1], "/".join(parts[:depth]), exclude) for depth in range(1, len(parts) + 1))


@dataclass
class _Walk:
    root: Path
    exclude: tuple[str, ...]
    include: tuple[str, ...] = DEFAULT_INCLUDE
    problems: list[FileProblem] = field(default_factory=list)

    def named(self, path: Path, force_exclude: bool) -> Iterator[Path]:
        """Files for one path from the command line."""
        if force_exclude and excluded_with_parents(path, self.root, self.exclude):
            return
        try:
            status = os.stat(path)
        except (OSError, ValueError) as error:
            if not _names_something(path):
                yield path  # callers check missing_paths() first; otherwise reading it reports the error
            elif isinstance(error, OSError):
                self.problems.append(FileProblem(path, _unreachable(path, error)))
            return
        if stat.S_ISDIR(status.st_mode):
            gitignore = GitIgnore()
            gitignore.enter_ancestors(path)
            relative = project_relative(path, self.root)
            yield from self._directory(path, "" if relative == "." else relative, gitignore)
        elif stat.S_ISREG(status.st_mode):
            yield path
        else:
            self.problems.append(FileProblem(path, NOT_A_REGULAR_FILE))

    def _directory(self, directory: Path, relative: str | None, gitignore: GitIgnore) -> Iterator[Path]:
        """``relative`` is ``directory`` relative to the project root ("" for the root), None outside it."""
        gitignore.enter(directory)
        try:
            with os.scandir(directory) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError as error:
            self.problems.append(FileProblem(directory, CANNOT_READ_DIRECTORY.format(reason=_reason(error))))
            return
        for entry in entries:
            entry_relative = None if relative is None else f"{relative}/{entry.name}" if relative else entry.name
            yield from self._entry(entry, entry_relative, gitignore)

    def _entry(self, entry: os.DirEntry[str], relative: str | None, gitignore: GitIgnore) -> Iterator[Path]:
        try:
            is_directory = entry.is_dir(follow_symlinks=False)
            is_link = entry.is_symlink()
        except OSError as error:
            self.problems.append(FileProblem(Path(entry.path), CANNOT_ACCESS.format(reason=_reason(error))))
            return
        if _matches(entry.name, entry.path if relative is None else relative, self.exclude):
            return
        if gitignore.ignores(entry.path, is_directory):
            return
        if is_directory:
            yield from self._directory(Path(entry.path), relative, gitignore)
        elif _matches(entry.name, entry.path if relative is None else relative, self.include):
            yield from self._linked_file(Path(entry.path)) if is_link else self._plain_file(entry)

    def _plain_file(self, entry: os.DirEntry[str]) -> Iterator[Path]:
        if entry.is_file(follow_symlinks=False):
            yield Path(entry.path)
        else:
            self.problems.append(FileProblem(Path(entry.path), NOT_A_REGULAR_FILE))

    def _linked_file(self, path: Path) -> Iterator[Path]:
        """A link to a file is linted under the link's name; links to directories are not followed."""
        try:
            status = os.stat(path)
        except OSError as error:
            self.problems.append(FileProblem(path, _unreachable(path, error)))
            return
        if stat.S_ISREG(status.st_mode):
            yield path
        elif not stat.S_ISDIR(status.st_mode):
            self.problems.append(FileProblem(path, NOT_A_REGULAR_FILE))


def _reason(error: OSError) -> str:
    return error.strerror or str(error)


def _unreachable(path: Path, error: OSError) -> str:
    if error.errno == errno.ELOOP:
        return SYMLINK_LOOP
    if error.errno in (errno.ENOENT, errno.ENOTDIR) and os.path.islink(path):
        return BROKEN_SYMLINK.format(target=os.readlink(path))
    return CANNOT_ACCESS.format(reason=_reason(error))


def discover(
    paths: Iterable[Path],
    root: Path,
    exclude: Iterable[str],
    *,
    force_exclude: bool = False,
    include: Iterable[str] = DEFAULT_INCLUDE,
) -> Discovered:
    """Python files and notebooks under ``paths`` (absolute, not resolved, each once) and the problems met.

    Directories are walked for the files ``include`` matches, skipping what ``exclude``
    (both matched against a name and against the path relative to ``root``) or
    ``.gitignore`` rule out. Files named in ``paths`` are always
    linted unless ``force_exclude``, which applies ``exclude`` to them too, parent directories
    included. A path that does not exist is yielded as it is; check :func:`missing_paths` first.
    """
    walk = _Walk(absolute(root), tuple(exclude), tuple(include))
    files = {file: None for path in paths for file in walk.named(absolute(path), force_exclude)}
    return Discovered(tuple(files), tuple(walk.problems))


def discover_files(
    paths: Iterable[Path], root: Path, exclude: Iterable[str], *, force_exclude: bool = False
) -> Iterator[Path]:
    """The files of :func:`discover`, without its problems."""
    return iter(discover(paths, root, exclude, force_exclude=force_exclude).files)
