"""The findings cache on large trees and hostile disks: eviction that scales with the tree,
cache files that are not regular files, and entries of the right JSON but the wrong types."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from torchcheck.cli import main
from torchcheck.lint.api import LintOptions, lint
from torchcheck.lint.cache import CACHE_DIRECTORY, MAX_AGE_SECONDS, FindingsCache

DAY = 24 * 3600.0
MISTAKE = "import torch\nx = torch.ones(3).cuda()\n"


def files(root: Path, *names: str) -> dict[str, Path]:
    paths = {}
    for name in names:
        paths[name] = root / f"{name}.py"
        paths[name].write_text("x = 1\n")
    return paths


def run_cache(root: Path, now: float, max_entries: int, puts=(), hits=()) -> None:
    """One run: ``puts`` are (key, path) pairs linted anew, ``hits`` keys read from the cache."""
    cache = FindingsCache(root, now=now, max_entries=max_entries)
    for key in hits:
        assert cache.get(key) is not None, key
    for key, path in puts:
        cache.put(key, [], path=path)
    cache.save()


def kept(root: Path) -> set[str]:
    cache = FindingsCache(root, now=0.0)
    return {key for key in "abcdefghijklmnopqrstuvwxyz" if cache.get(key) is not None} | {
        key for key in ("a-old", "a-new") if cache.get(key) is not None
    }


# ----------------------------------------------------------------------------- eviction


def test_a_run_over_more_files_than_the_cap_keeps_an_entry_for_every_file(tmp_path: Path) -> None:
    paths = files(tmp_path, *"abcdefghij")
    run_cache(tmp_path, 1_000.0, max_entries=4, puts=[(name, path) for name, path in paths.items()])
    assert kept(tmp_path) == set("abcdefghij")
    # and the warm run finds all of them: nothing is linted again
    run_cache(tmp_path, 2_000.0, max_entries=4, hits="abcdefghij")


def test_entries_of_deleted_files_are_evicted_first_even_when_used_more_recently(tmp_path: Path) -> None:
    paths = files(tmp_path, *"abcdef")
    run_cache(tmp_path, 1_000.0, max_entries=100, puts=[(name, paths[name]) for name in "ab"])
    run_cache(tmp_path, 2_000.0, max_entries=100, puts=[(name, paths[name]) for name in "cd"])
    paths["c"].unlink()
    paths["d"].unlink()
    run_cache(tmp_path, 3_000.0, max_entries=4, puts=[(name, paths[name]) for name in "ef"])
    assert kept(tmp_path) == set("abef")


def test_an_entry_replaced_by_a_newer_one_for_the_same_file_goes_before_other_files(tmp_path: Path) -> None:
    paths = files(tmp_path, "a", "b", "c", "d")
    run_cache(tmp_path, 1_000.0, max_entries=100, puts=[("b", paths["b"]), ("c", paths["c"])])
    run_cache(tmp_path, 2_000.0, max_entries=100, puts=[("a-old", paths["a"])])
    run_cache(tmp_path, 3_000.0, max_entries=100, puts=[("a-new", paths["a"])])  # a.py was edited
    run_cache(tmp_path, 4_000.0, max_entries=3, puts=[("d", paths["d"])])
    assert kept(tmp_path) == {"a-new", "b", "c", "d"}


def test_eviction_is_by_last_use_not_by_when_the_entry_was_written(tmp_path: Path) -> None:
    paths = files(tmp_path, "a", "b", "c")
    run_cache(tmp_path, 1 * DAY, max_entries=100, puts=[("a", paths["a"])])
    run_cache(tmp_path, 2 * DAY, max_entries=100, puts=[("b", paths["b"])])
    run_cache(tmp_path, 3 * DAY, max_entries=100, hits="a")  # a was written first but used since
    paths["a"].unlink()
    paths["b"].unlink()
    run_cache(tmp_path, 4 * DAY, max_entries=2, puts=[("c", paths["c"])])
    assert kept(tmp_path) == {"a", "c"}


def test_a_small_run_does_not_evict_the_entries_of_the_rest_of_a_large_tree(tmp_path: Path) -> None:
    paths = files(tmp_path, *"abcdefghij")
    run_cache(tmp_path, 1_000.0, max_entries=4, puts=[(name, path) for name, path in paths.items()])
    paths["k"] = tmp_path / "k.py"
    paths["k"].write_text("y = 2\n")
    run_cache(tmp_path, 2_000.0, max_entries=4, puts=[("k", paths["k"])])  # a pre-commit run
    assert kept(tmp_path) == set("abcdefghijk")


def test_entries_unused_for_the_maximum_age_are_evicted_even_below_the_cap(tmp_path: Path) -> None:
    paths = files(tmp_path, "a", "b")
    run_cache(tmp_path, 1_000.0, max_entries=100, puts=[("a", paths["a"])])
    run_cache(tmp_path, 1_000.0 + MAX_AGE_SECONDS + DAY, max_entries=100, puts=[("b", paths["b"])])
    assert kept(tmp_path) == {"b"}


# ----------------------------------------------------------------------------- hostile cache files


def cache_file(root: Path) -> Path:
    (root / CACHE_DIRECTORY).mkdir(exist_ok=True)
    return root / CACHE_DIRECTORY / "findings-v3.json"


def lint_in_subprocess(root: Path) -> subprocess.CompletedProcess[str]:
    """A hanging read must fail the test, not hang the suite."""
    return subprocess.run(
        [sys.executable, "-m", "torchcheck", "lint", "--output-format", "concise", "."],
        cwd=root, capture_output=True, text=True, timeout=30,
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_fifo_as_the_cache_file_is_ignored_with_one_warning_and_left_alone(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(MISTAKE)
    os.mkfifo(cache_file(tmp_path))
    completed = lint_in_subprocess(tmp_path)
    assert completed.returncode == 1 and "a.py:2:5: TCK201" in completed.stdout
    warnings = [line for line in completed.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "not a regular file" in warnings[0], completed.stderr
    assert "Traceback" not in completed.stderr
    assert not cache_file(tmp_path).is_file()  # still the FIFO: the user's to remove


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_link_to_dev_zero_as_the_cache_file_is_ignored(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(MISTAKE)
    cache_file(tmp_path).symlink_to("/dev/zero")
    completed = lint_in_subprocess(tmp_path)
    assert completed.returncode == 1 and "a.py:2:5: TCK201" in completed.stdout
    assert completed.stderr.count("warning") == 1 and "Traceback" not in completed.stderr


def test_a_cache_file_larger_than_the_size_limit_is_not_read(tmp_path: Path) -> None:
    cache = FindingsCache(tmp_path, max_entries=10)
    (tmp_path / "a.py").write_text("")
    cache.put("a", [], path=tmp_path / "a.py")
    cache.save()
    assert len(FindingsCache(tmp_path, max_file_bytes=10**6)) == 1
    assert len(FindingsCache(tmp_path, max_file_bytes=10)) == 0


# ----------------------------------------------------------------------------- wrong types


def corrupt_first_finding(root: Path, change) -> None:
    path = next((root / CACHE_DIRECTORY).glob("findings-*.json"))
    document = json.loads(path.read_text())
    for entry in document["entries"].values():
        if entry[1]:
            change(entry)
    path.write_text(json.dumps(document))


WRONG_TYPES = {
    "a number as the file name": lambda entry: entry[1][0].update(filename=5),
    "a string as a row": lambda entry: entry[1][0]["location"].update(row="2"),
    "a list where a location belongs": lambda entry: entry[1][0].update(location=[2, 5]),
    "a list where a finding belongs": lambda entry: entry[1].__setitem__(0, ["TCK201"]),
    "a number where the code belongs": lambda entry: entry[1][0].update(code=201),
    "a dict where the fix belongs is malformed": lambda entry: entry[1][0].update(fix={"edits": 3}),
    "a list where the project data belongs": lambda entry: entry.__setitem__(2, []),
    "a number in the deferred findings": lambda entry: entry[2].update(deferred=[7]),
    "a string as the last use": lambda entry: entry.__setitem__(0, "yesterday"),
}


@pytest.mark.parametrize("change", WRONG_TYPES.values(), ids=WRONG_TYPES.keys())
def test_a_cache_entry_of_the_wrong_types_is_discarded_and_the_file_linted_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], change
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(MISTAKE)
    assert main(["lint", "-q", "."]) == 1
    capsys.readouterr()
    corrupt_first_finding(tmp_path, change)
    for _ in range(2):  # the bad entry is replaced, never fatal
        assert main(["lint", "--output-format", "concise", "."]) == 1
        out, err = capsys.readouterr()
        assert "a.py:2:5: TCK201" in out and "internal error" not in err


@pytest.mark.parametrize(
    "document",
    [[], {"version": 3, "entries": []}, {"version": 3, "entries": {"k": 5}}, "[" * 100_000 + "]" * 100_000],
    ids=["a list", "entries as a list", "an entry as a number", "nested too deeply"],
)
def test_a_cache_document_of_the_wrong_shape_counts_as_empty(tmp_path: Path, document) -> None:
    cache_file(tmp_path).write_text(document if isinstance(document, str) else json.dumps(document))
    assert len(FindingsCache(tmp_path)) == 0


def test_valid_entries_survive_next_to_a_bad_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("a", "b"):
        (tmp_path / f"{name}.py").write_text(MISTAKE)
    lint(LintOptions(paths=(tmp_path,)))
    path = cache_file(tmp_path)
    document = json.loads(path.read_text())
    first, second = sorted(document["entries"])
    document["entries"][first][1][0]["filename"] = 5
    document["entries"][second][1][0]["message"] = "from the cache"
    path.write_text(json.dumps(document))
    messages = sorted(d.message for d in lint(LintOptions(paths=(tmp_path,))).diagnostics)
    assert "from the cache" in messages and len(messages) == 2
