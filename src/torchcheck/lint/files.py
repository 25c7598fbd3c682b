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


_STAR = None  # a ``*`` token; every other token is the regex of exactly one character
_ANY_NAME = "(?:[^/]*/)"  # one whole directory name and its separator


@dataclass(frozen=True)
class IgnorePattern:
    """One line of an ignore file, matched against a path relative to the file's directory.

    The regex never backtracks more than linearly, whatever the line: a ``*`` or ``**/``
    that is not the last of its name or path scans forward to the earliest place where
    the rest up to the next one matches, and stays there (an atomic group, emulated with
    a lookahead so that Python 3.10 has it). Taking the earliest place is always right,
    because what follows can match from there whenever it could match from further on.
    """

    regex: re.Pattern[str]
    negated: bool
    directory_only: bool
    # A line without ``/`` matches a name at any depth: only the last name is matched.
    name_only: bool = False

    def matches(self, relative: str) -> bool:
        """Whether the pattern matches ``relative`` (POSIX separators, no leading ``/``)."""
        return self.regex.match(relative[relative.rfind("/") + 1 :] if self.name_only else relative) is not None


@dataclass(frozen=True)
class _IgnorePattern:
    prefix: str  # the directory the pattern is relative to, ending with a separator
    pattern: IgnorePattern


class _AtomicGroups:
    """Names the groups of one regex: each emulated atomic group needs its own."""

    def __init__(self) -> None:
        self._count = 0

    def __call__(self, body: str) -> str:
        self._count += 1
        name = f"g{self._count}"
        return f"(?=(?P<{name}>{body}))(?P={name})"


def _character_class(pattern: str, start: int) -> tuple[str, int] | None:
    """The regex of the class opening at ``pattern[start]`` and the index of its ``]``; None
    when it never closes (the ``[`` is then a literal). A class never matches ``/``."""
    index, end = start + 1, len(pattern)
    negated = index < end and pattern[index] in "!^"
    index += negated
    ranges: list[tuple[str, str]] = []
    first = True
    while index < end and (pattern[index] != "]" or first):
        first = False
        low, index = _class_character(pattern, index)
        if index + 1 < end and pattern[index] == "-" and pattern[index + 1] != "]":
            high, index = _class_character(pattern, index + 1)
        else:
            high = low
        if low > high:
            raise ValueError(f"reversed range {low}-{high}")
        ranges.append((low, high))
    if index >= end:
        return None
    body = "".join(re.escape(low) + ("-" + re.escape(high) if high != low else "") for low, high in ranges)
    if negated:
        return f"[^/{body}]", index
    covers_separator = any(low <= "/" <= high for low, high in ranges)
    return ("(?!/)" if covers_separator else "") + f"[{body}]", index


def _class_character(pattern: str, index: int) -> tuple[str, int]:
    if pattern[index] == "\\" and index + 1 < len(pattern):
        index += 1
    return pattern[index], index + 1


def _names_of(body: str) -> list[list[str | None]]:
    """``body`` as its ``/``-separated names, each a list of tokens (see :data:`_STAR`)."""
    names: list[list[str | None]] = [[]]
    index = 0
    while index < len(body):
        char = body[index]
        if char == "/":
            names.append([])
        elif char == "*":
            names[-1].append(_STAR)
        elif char == "?":
            names[-1].append("[^/]")
        elif char == "[" and (found := _character_class(body, index)) is not None:
            regex, index = found
            names[-1].append(regex)
        else:
            if char == "\\" and index + 1 < len(body):
                index += 1
            names[-1].append(re.escape(body[index]))
        index += 1
    return names


def _name_regex(tokens: list[str | None], atomic: _AtomicGroups) -> str:
    """One name: each ``*`` but the last jumps to the earliest match of what follows it."""
    pieces: list[str] = [""]
    for token in tokens:
        if token is _STAR:
            pieces.append("")
        else:
            pieces[-1] += token
    if len(pieces) == 1:
        return pieces[0]
    head, *middle, tail = pieces
    return head + "".join(atomic("[^/]*?" + piece) for piece in middle if piece) + "[^/]*" + tail


def _path_regex(names: list[list[str | None]], atomic: _AtomicGroups) -> str:
    """Whole names joined by ``/``; ``**`` stands for any number of whole names (a trailing
    one for at least one), and each ``**`` but the last jumps like a ``*``."""
    groups: list[list[str]] = [[]]
    for tokens in names:
        if tokens == [_STAR, _STAR]:
            if groups[-1] or len(groups) == 1:
                groups.append([])
        else:
            groups[-1].append(_name_regex(tokens, atomic))
    if len(groups) == 1:
        return "/".join(groups[0]) + r"\Z"
    head, *middle, tail = groups
    regex = "".join(name + "/" for name in head)
    regex += "".join(atomic(f"{_ANY_NAME}*?" + "/".join(group) + "/") for group in middle)
    return regex + (f"{_ANY_NAME}*" + "/".join(tail) + r"\Z" if tail else r".+\Z")


def compile_ignore_pattern(line: str) -> IgnorePattern | None:
    """The pattern of one ``.gitignore`` line, with git's meaning; None for a blank line, a
    comment, or a line git ignores too (a reversed range such as ``[z-a]``)."""
    line = line.rstrip()
    if not line or line.startswith("#"):
        return None
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    directory_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line  # at the start or in the middle: relative to the file's directory
    try:
        names = _names_of(line.lstrip("/"))
    except ValueError:
        return None
    atomic = _AtomicGroups()
    if not anchored:
        regex = re.compile(_name_regex(names[0], atomic) + r"\Z", re.DOTALL)
        return IgnorePattern(regex, negated, directory_only, name_only=True)
    return IgnorePattern(re.compile(_path_regex(names, atomic), re.DOTALL), negated, directory_only)


def _parse_gitignore(path: Path, base: str) -> list[_IgnorePattern]:
    """Patterns of one ignore file; they are relative to ``base``. An unreadable file ignores nothing."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    prefix = os.path.join(base, "")
    return [_IgnorePattern(prefix, pattern) for line in lines if (pattern := compile_ignore_pattern(line)) is not None]


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
        name = text[text.rfind(os.sep) + 1 :]
        ignored = False
        for located in self._patterns:
            pattern = located.pattern
            if (pattern.directory_only and not is_directory) or not text.startswith(located.prefix):
                continue
            relative = name if pattern.name_only else text[len(located.prefix) :]
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
        """Files under ``directory``, depth first in name order. ``relative`` is ``directory``
        relative to the project root ("" for the root), None outside it.

        A stack of listings, not recursion: a tree deeper than Python's recursion limit is
        walked like any other."""
        listings = [self._listing(directory, relative, gitignore)]
        while listings:
            item = next(listings[-1], None)
            if item is None:
                listings.pop()
                continue
            entry, entry_relative = item
            kind = self._kind(entry, entry_relative, gitignore)
            if kind == "directory":
                listings.append(self._listing(Path(entry.path), entry_relative, gitignore))
            elif kind == "link":
                yield from self._linked_file(Path(entry.path))
            elif kind == "file":
                yield from self._plain_file(entry)

    def _listing(
        self, directory: Path, relative: str | None, gitignore: GitIgnore
    ) -> Iterator[tuple[os.DirEntry[str], str | None]]:
        """The entries of one directory in name order, each with its path relative to the root.
        Read at once and closed: a deep stack of listings holds no open directories."""
        gitignore.enter(directory)
        try:
            with os.scandir(directory) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError as error:
            self.problems.append(FileProblem(directory, CANNOT_READ_DIRECTORY.format(reason=_reason(error))))
            return iter(())
        return ((entry, _child(relative, entry.name)) for entry in entries)

    def _kind(self, entry: os.DirEntry[str], relative: str | None, gitignore: GitIgnore) -> str | None:
        """What the walk does with an entry: "directory" (descend), "file" or "link" (lint
        it; a link may lead to a directory, which is not followed) or None (skip it)."""
        try:
            is_directory = entry.is_dir(follow_symlinks=False)
            is_link = entry.is_symlink()
        except OSError as error:
            self.problems.append(FileProblem(Path(entry.path), CANNOT_ACCESS.format(reason=_reason(error))))
            return None
        if _matches(entry.name, entry.path if relative is None else relative, self.exclude):
            return None
        if gitignore.ignores(entry.path, is_directory):
            return None
        if is_directory:
            return "directory"
        if not _matches(entry.name, entry.path if relative is None else relative, self.include):
            return None
        return "link" if is_link else "file"

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


def _child(relative: str | None, name: str) -> str | None:
    return None if relative is None else f"{relative}/{name}" if relative else name


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
