"""Which files to lint: recurse into directories, honour excludes and ``.gitignore``."""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

PYTHON_SUFFIXES = (".py", ".pyi")


@dataclass(frozen=True)
class _IgnorePattern:
    base: Path
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


def _parse_gitignore(path: Path) -> list[_IgnorePattern]:
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
        regex = re.compile(("" if anchored else "(?:.*/)?") + body + "$")
        patterns.append(_IgnorePattern(path.parent, regex, negated, directory_only))
    return patterns


class GitIgnore:
    """The ``.gitignore`` files that apply under one repository, loaded as directories are entered."""

    def __init__(self) -> None:
        self._patterns: list[_IgnorePattern] = []
        self._loaded: set[Path] = set()

    def enter(self, directory: Path) -> None:
        if directory in self._loaded:
            return
        self._loaded.add(directory)
        gitignore = directory / ".gitignore"
        if gitignore.is_file():
            self._patterns.extend(_parse_gitignore(gitignore))

    def enter_ancestors(self, directory: Path) -> None:
        """Load ``.gitignore`` files from the repository root down to ``directory``."""
        chain = [directory, *directory.parents]
        root_index = next((i for i, d in enumerate(chain) if (d / ".git").exists()), None)
        if root_index is None:
            self.enter(directory)
            return
        for ancestor in reversed(chain[: root_index + 1]):
            self.enter(ancestor)

    def ignores(self, path: Path, is_directory: bool) -> bool:
        ignored = False
        for pattern in self._patterns:
            if pattern.directory_only and not is_directory:
                continue
            try:
                relative = path.relative_to(pattern.base).as_posix()
            except ValueError:
                continue
            if pattern.regex.match(relative):
                ignored = not pattern.negated
        return ignored


def _excluded(path: Path, root: Path, exclude: Iterable[str]) -> bool:
    try:
        relative = path.relative_to(root).as_posix()
    except ValueError:
        relative = path.as_posix()
    return any(fnmatch.fnmatch(path.name, pattern) or fnmatch.fnmatch(relative, pattern) for pattern in exclude)


def discover_files(paths: Iterable[Path], root: Path, exclude: Iterable[str]) -> Iterator[Path]:
    """Python files under ``paths``; explicitly named files are always yielded."""
    exclude = tuple(exclude)
    for path in paths:
        if path.is_dir():
            gitignore = GitIgnore()
            gitignore.enter_ancestors(path.resolve())
            yield from _walk(path.resolve(), root.resolve(), exclude, gitignore)
        else:
            yield path.resolve()


def _walk(directory: Path, root: Path, exclude: tuple[str, ...], gitignore: GitIgnore) -> Iterator[Path]:
    gitignore.enter(directory)
    try:
        entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
    except OSError:
        return
    for entry in entries:
        path = Path(entry.path)
        is_directory = entry.is_dir(follow_symlinks=False)
        if _excluded(path, root, exclude) or gitignore.ignores(path, is_directory):
            continue
        if is_directory:
            yield from _walk(path, root, exclude, gitignore)
        elif entry.name.endswith(PYTHON_SUFFIXES) and entry.is_file():
            yield path
