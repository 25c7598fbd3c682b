""".gitignore patterns: git's meaning, and matching time linear in the path whatever the pattern."""

from __future__ import annotations

import fnmatch
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from torchcheck.lint.files import compile_ignore_pattern, discover

HOSTILE_GITIGNORE = {
    "stars in one name": ("*a*a*a*a*a*a*a*a*a*a*a*a*b\n", ["a" * 60 + ".py"]),
    "stars and single characters": ("?*?*?*?*?*?*?*?*?*?*?*?*?*?*b\n", ["a" * 60 + ".py"]),
    "stars in an anchored path": ("/*a*a*a*a*a*a*a*a*a*a*a*b/x\n", ["a" * 60 + "/x.py"]),
    "many double stars": ("**/" * 25 + "zz\n", ["/".join(["d"] * 30) + "/x.py"]),
    "double stars between names": ("d/**/d/**/d/**/d/**/d/**/d/**/d/**/d/**/zz\n", ["/".join(["d"] * 40) + "/x.py"]),
}


@pytest.mark.parametrize(("gitignore", "files"), HOSTILE_GITIGNORE.values(), ids=HOSTILE_GITIGNORE.keys())
def test_a_hostile_gitignore_line_does_not_hang_discovery(tmp_path: Path, gitignore: str, files: list[str]) -> None:
    (tmp_path / ".gitignore").write_text(gitignore)
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("import torch\n")
    script = textwrap.dedent(
        f"""
        from pathlib import Path
        from torchcheck.lint.files import discover
        root = Path({str(tmp_path)!r})
        print(len(discover([root], root, []).files))
        """
    )
    # in a subprocess: a regular expression that backtracks cannot be interrupted in-process
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=20)
    assert completed.stdout.strip() == str(len(files)), completed.stderr


# ----------------------------------------------------------------------------- git's meaning


def reference_segments(patterns: list[str], names: list[str]) -> bool:
    """The definition, exponential and obviously right: ``**`` is any number of whole names,
    a trailing ``**`` at least one, anything else one name matched as a glob."""
    if not patterns:
        return not names
    if patterns[0] == "**":
        if len(patterns) == 1:
            return bool(names)
        return any(reference_segments(patterns[1:], names[skip:]) for skip in range(len(names) + 1))
    return bool(names) and fnmatch.fnmatchcase(names[0], patterns[0]) and reference_segments(patterns[1:], names[1:])


def reference_match(line: str, path: str) -> bool:
    body = line.rstrip("/")
    anchored = "/" in body
    segments = body.lstrip("/").split("/")
    return reference_segments(segments if anchored else ["**", *segments], path.split("/"))


PATTERN_TOKENS = ["a", "b", ".", "*", "?", "[ab]", "[!a]", "[a-b]", "/", "**", "**/", "/**"]
NAMES = ["a", "b", ".", "ab", "ba", "aa", "a.b", "bab", ".a"]


def random_lines(count: int) -> list[str]:
    generator = random.Random(1234)
    lines: list[str] = []
    while len(lines) < count:
        line = "".join(generator.choice(PATTERN_TOKENS) for _ in range(generator.randint(1, 6)))
        if line.strip("/") and "//" not in line:
            lines.append(line)
    return lines


def random_paths(count: int) -> list[str]:
    generator = random.Random(5678)
    return ["/".join(generator.choice(NAMES) for _ in range(generator.randint(1, 4))) for _ in range(count)]


def test_patterns_match_what_gits_definition_matches() -> None:
    paths = random_paths(60)
    mismatches = []
    for line in random_lines(600):
        pattern = compile_ignore_pattern(line)
        assert pattern is not None, line
        mismatches += [(line, path) for path in paths if pattern.matches(path) != reference_match(line, path)]
    assert mismatches == []


@pytest.mark.parametrize(
    ("line", "matching", "not_matching"),
    [
        ("*.py[cod]", ["x.pyc", "a/b/x.pyo"], ["x.py", "x.pyx"]),
        ("/build", ["build"], ["src/build"]),
        ("docs/_build", ["docs/_build"], ["src/docs/_build"]),
        ("**/cache", ["cache", "a/b/cache"], ["cache2"]),
        ("logs/**", ["logs/a", "logs/a/b"], ["logs", "x/logs/a"]),
        ("a/**/b", ["a/b", "a/x/b", "a/x/y/b"], ["b", "a/xb"]),
        ("a[!x]b", ["abb"], ["axb", "a/b"]),
        ("a?b", ["axb"], ["a/b", "ab"]),
        ("\\#notes", ["#notes"], ["notes"]),
        ("\\!keep", ["!keep"], ["keep"]),
        ("x**y", ["xy", "xzzy"], ["x/y", "x/z/y"]),
    ],
)
def test_common_gitignore_lines_mean_what_git_means(line: str, matching: list[str], not_matching: list[str]) -> None:
    pattern = compile_ignore_pattern(line)
    assert pattern is not None
    assert [path for path in matching if not pattern.matches(path)] == []
    assert [path for path in not_matching if pattern.matches(path)] == []


@pytest.mark.parametrize("line", ["", "   ", "# a comment", "[z-a]"])
def test_lines_that_ignore_nothing_give_no_pattern(line: str) -> None:
    assert compile_ignore_pattern(line) is None


def test_negation_directory_only_and_anchoring_work_through_discovery(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("gen/\n/top.py\n*_pb2.py\n!keep_pb2.py\n")
    for name in ("gen/a.py", "sub/gen/b.py", "top.py", "sub/top.py", "x_pb2.py", "keep_pb2.py", "gen.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    found = discover([tmp_path], tmp_path, [])
    assert sorted(path.relative_to(tmp_path).as_posix() for path in found.files) == ["gen.py", "keep_pb2.py", "sub/top.py"]
