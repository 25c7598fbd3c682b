"""``unified_diff`` patches are checked by applying them with ``git apply`` to the real bytes."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from torchcheck.lint.diffs import split_lines, unified_diff

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git to apply the patches")

LATIN_1_BEFORE = "# -*- coding: latin-1 -*-\nname = 'caf\xe9'\nx = torch.ones(3).cuda()\n".encode("latin-1")
LATIN_1_AFTER = "# -*- coding: latin-1 -*-\nname = 'caf\xe9'\nx = torch.ones(3, device='cuda')\n".encode("latin-1")

CASES = {
    "no-final-newline": (b"import torch\nx = torch.ones(3).cuda()", b"import torch\nx = torch.ones(3, device='cuda')"),
    "newline-added-at-end": (b"a = 1\nb = 2", b"a = 1\nb = 2\n"),
    "newline-removed-at-end": (b"a = 1\nb = 2\n", b"a = 1\nb = 3"),
    "form-feed": (b"x = 1\n\x0c\ndef f():\n    return x.cuda()\n", b"x = 1\n\x0c\ndef f():\n    return x.to('cuda')\n"),
    "u2028-and-x1c": ("s = 'a\u2028b\x1cc'\ny = 1\n".encode(), "s = 'a\u2028b\x1cc'\ny = 2\n".encode()),
    "latin-1-cookie": (LATIN_1_BEFORE, LATIN_1_AFTER),
    "crlf": (b"import torch\r\nx = 1\r\ny = 2\r\n", b"import torch\r\nimport os\r\nx = 1\r\ny = 2\r\n"),
    "lone-cr-inside-a-line": (b"s = 'a\rb'\nz = 1\n", b"s = 'a\rb'\nz = 2\n"),
    "empty-before": (b"", b"x = 1\n"),
    "everything-removed": (b"x = 1\n", b""),
}


def git(directory: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *arguments], cwd=directory, capture_output=True, text=True)


def apply(directory: Path, files: dict[str, tuple[bytes, bytes]]) -> bytes:
    """Write the ``before`` files, apply one concatenated patch with git, return the patch."""
    git(directory, "init", "-q")
    patch = b""
    for name, (before, after) in files.items():
        (directory / name).write_bytes(before)
        patch += unified_diff(name, before, after)
    (directory / "fix.patch").write_bytes(patch)
    check = git(directory, "apply", "--check", "fix.patch")
    assert check.returncode == 0, check.stderr
    applied = git(directory, "apply", "fix.patch")
    assert applied.returncode == 0, applied.stderr
    return patch


@pytest.mark.parametrize("case", CASES)
def test_the_patch_applies_with_git_and_reproduces_the_fixed_bytes(tmp_path: Path, case: str) -> None:
    before, after = CASES[case]
    apply(tmp_path, {"model.py": (before, after)})
    assert (tmp_path / "model.py").read_bytes() == after


def test_patches_for_several_files_concatenate_into_one_valid_patch(tmp_path: Path) -> None:
    files = {f"{case}.py": pair for case, pair in CASES.items()}
    apply(tmp_path, files)
    for name, (_, after) in files.items():
        assert (tmp_path / name).read_bytes() == after, name


def test_a_missing_final_newline_is_marked_so_the_next_header_starts_its_own_line() -> None:
    patch = unified_diff("a.py", b"x = 1", b"x = 2")
    assert patch.splitlines() == [
        b"--- a/a.py",
        b"+++ b/a.py",
        b"@@ -1 +1 @@",
        b"-x = 1",
        b"\\ No newline at end of file",
        b"+x = 2",
        b"\\ No newline at end of file",
    ]
    assert patch.endswith(b"\n")


@pytest.mark.parametrize("name", ["my model.py", 'say "hi".py', "back\\slash.py", "tab\tstop.py", "caf\u00e9.py"])
def test_names_that_git_would_quote_survive_git_apply(tmp_path: Path, name: str) -> None:
    apply(tmp_path, {name: (b"a = 1\n", b"a = 2\n")})
    assert (tmp_path / name).read_bytes() == b"a = 2\n"


def test_files_in_subdirectories_keep_their_path_in_the_headers(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    patch = apply(tmp_path, {"pkg/model.py": (b"a = 1\n", b"a = 2\n")})
    assert patch.startswith(b"--- a/pkg/model.py\n+++ b/pkg/model.py\n")


def test_identical_contents_give_an_empty_patch() -> None:
    assert unified_diff("a.py", b"x = 1\n", b"x = 1\n") == b""


def test_lines_split_only_on_line_feeds() -> None:
    assert split_lines(b"a\r\nb\x0cc\x1cd\ne") == [b"a\r\n", b"b\x0cc\x1cd\n", b"e"]
    assert split_lines(b"") == [] and split_lines(b"\n") == [b"\n"]
