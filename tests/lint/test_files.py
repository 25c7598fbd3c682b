"""File discovery on hostile file systems: exclusion, links, unreadable directories, missing paths."""

from __future__ import annotations

import ast
import importlib
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from torchcheck.config import DEFAULT_EXCLUDE
from torchcheck.lint.files import (
    Discovered,
    FileProblem,
    MissingPathError,
    discover,
    discover_files,
    excluded_with_parents,
    missing_paths,
    project_relative,
    require_existing,
    resolves_inside,
)


def touch(path: Path, text: str = "x = 1\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def skip_unless_chmod_stops_reads(directory: Path) -> None:
    """Root (with CAP_DAC_OVERRIDE) reads through chmod 000; only a real refusal tests anything."""
    probe = directory / "probe"
    probe.mkdir()
    probe.chmod(0)
    try:
        refused = not os.access(probe, os.R_OK)
    finally:
        probe.chmod(stat.S_IRWXU)
        probe.rmdir()
    if not refused:
        pytest.skip("chmod 000 does not stop this user from reading")


def names(found: Discovered, root: Path) -> list[str]:
    return [path.relative_to(root).as_posix() for path in found.files]


def reasons(found: Discovered, root: Path) -> dict[str, str]:
    return {problem.path.relative_to(root).as_posix(): problem.reason for problem in found.problems}


def test_the_original_three_argument_call_still_yields_paths(tmp_path: Path) -> None:
    touch(tmp_path / "a.py")
    touch(tmp_path / "build" / "b.py")
    assert list(discover_files([tmp_path], tmp_path, DEFAULT_EXCLUDE)) == [tmp_path / "a.py"]


def test_an_explicit_file_in_an_excluded_directory_is_linted_without_force_exclude(tmp_path: Path) -> None:
    target = touch(tmp_path / "third_party" / "x" / "y.py")
    assert discover([target], tmp_path, ["third_party"]).files == (target,)


def test_force_exclude_drops_an_explicit_file_whose_parent_directory_is_excluded(tmp_path: Path) -> None:
    target = touch(tmp_path / "third_party" / "x" / "y.py")
    assert discover([target], tmp_path, ["third_party"], force_exclude=True).files == ()


def test_force_exclude_matches_names_paths_relative_to_the_root_and_globs(tmp_path: Path) -> None:
    touch(tmp_path / "src" / "legacy" / "old.py")
    touch(tmp_path / "src" / "gen_pb2.py")
    touch(tmp_path / "src" / "kept.py")
    named = [tmp_path / "src" / "legacy" / "old.py", tmp_path / "src" / "gen_pb2.py", tmp_path / "src" / "kept.py"]
    found = discover(named, tmp_path, ["src/legacy", "*_pb2.py"], force_exclude=True)
    assert names(found, tmp_path) == ["src/kept.py"]


def test_force_exclude_also_drops_an_explicitly_named_excluded_directory(tmp_path: Path) -> None:
    touch(tmp_path / "vendor" / "a.py")
    assert discover([tmp_path / "vendor"], tmp_path, ["vendor"]).files == (tmp_path / "vendor" / "a.py",)
    assert discover([tmp_path / "vendor"], tmp_path, ["vendor"], force_exclude=True).files == ()


def test_directories_above_the_project_root_never_count_as_excluded(tmp_path: Path) -> None:
    project = tmp_path / "build" / "project"
    target = touch(project / "a.py")
    assert discover([target], project, DEFAULT_EXCLUDE, force_exclude=True).files == (target,)
    assert excluded_with_parents(target, project, ["build"]) is False
    assert excluded_with_parents(project / "build" / "a.py", project, ["build"]) is True


def test_a_relative_path_is_yielded_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    touch(tmp_path / "pkg" / "a.py")
    assert discover([Path("pkg/../pkg")], Path("."), ()).files == (tmp_path / "pkg" / "a.py",)


def test_git_info_exclude_is_honoured_like_a_root_gitignore(tmp_path: Path) -> None:
    touch(tmp_path / ".git" / "info" / "exclude", "# local only\nscratch/\n*_local.py\n")
    touch(tmp_path / ".gitignore", "!keep_local.py\n")
    for name in ("a.py", "scratch/b.py", "pkg/c_local.py", "pkg/keep_local.py"):
        touch(tmp_path / name)
    assert names(discover([tmp_path / "pkg", tmp_path], tmp_path, DEFAULT_EXCLUDE), tmp_path) == [
        "pkg/keep_local.py",
        "a.py",
    ]


def test_a_symlink_loop_inside_the_tree_is_reported_and_the_walk_goes_on(tmp_path: Path) -> None:
    (tmp_path / "loop.py").symlink_to(tmp_path / "loop.py")
    (tmp_path / "cycle").symlink_to(tmp_path)  # a link to a directory is not followed
    touch(tmp_path / "z.py")
    found = discover([tmp_path], tmp_path, ())
    assert names(found, tmp_path) == ["z.py"]
    assert reasons(found, tmp_path) == {"loop.py": "symbolic link loop"}


def test_a_symlink_loop_named_on_the_command_line_is_reported_not_raised(tmp_path: Path) -> None:
    (tmp_path / "a.py").symlink_to(tmp_path / "b.py")
    (tmp_path / "b.py").symlink_to(tmp_path / "a.py")
    found = discover([tmp_path / "a.py"], tmp_path, ())
    assert found == Discovered((), (FileProblem(tmp_path / "a.py", "symbolic link loop"),))
    assert missing_paths([tmp_path / "a.py"]) == ()


def test_a_broken_symlink_is_reported_under_its_own_name(tmp_path: Path) -> None:
    (tmp_path / "dangling.py").symlink_to(tmp_path / "gone" / "target.py")
    inside = discover([tmp_path], tmp_path, ())
    named = discover([tmp_path / "dangling.py"], tmp_path, ())
    for found in (inside, named):
        assert [problem.path for problem in found.problems] == [tmp_path / "dangling.py"]
        assert found.problems[0].reason.startswith("broken symbolic link")
        assert str(tmp_path / "gone" / "target.py") in found.problems[0].reason


def test_a_linked_file_is_yielded_under_the_link_name_not_its_target(tmp_path: Path) -> None:
    target = touch(tmp_path / "real" / "impl.py")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "alias.py").symlink_to(target)
    assert discover([tmp_path / "pkg"], tmp_path, ()).files == (tmp_path / "pkg" / "alias.py",)
    assert discover([tmp_path / "pkg" / "alias.py"], tmp_path, ()).files == (tmp_path / "pkg" / "alias.py",)


def test_a_fifo_named_like_a_python_file_is_reported_instead_of_read(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.py")
    for paths in ([tmp_path], [tmp_path / "pipe.py"]):
        found = discover(paths, tmp_path, ())
        assert found == Discovered((), (FileProblem(tmp_path / "pipe.py", "not a regular file"),))


def test_an_unreadable_directory_is_reported_and_its_siblings_are_still_linted(tmp_path: Path) -> None:
    skip_unless_chmod_stops_reads(tmp_path)
    locked = tmp_path / "locked"
    touch(locked / "secret.py")
    touch(tmp_path / "open.py")
    locked.chmod(0)
    try:
        found = discover([tmp_path], tmp_path, ())
        named = discover([locked / "secret.py"], tmp_path, ())
    finally:
        locked.chmod(stat.S_IRWXU)
    assert names(found, tmp_path) == ["open.py"]
    assert reasons(found, tmp_path) == {"locked": "cannot read directory: Permission denied"}
    assert named.files == () and named.problems[0].reason == "cannot access: Permission denied"


def test_a_gitignore_that_is_a_directory_or_a_broken_link_ignores_nothing(tmp_path: Path) -> None:
    (tmp_path / "a" / ".gitignore").mkdir(parents=True)
    touch(tmp_path / "a" / "x.py")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / ".gitignore").symlink_to(tmp_path / "nowhere")
    touch(tmp_path / "b" / "y.py")
    found = discover([tmp_path], tmp_path, ())
    assert names(found, tmp_path) == ["a/x.py", "b/y.py"] and found.problems == ()


def _directory_near_path_max(base: Path) -> Path:
    """A directory whose own path fits in PATH_MAX but whose ``.gitignore`` path does not."""
    limit = os.pathconf(base, "PC_PATH_MAX")
    directory = base
    while len(str(directory)) < limit - 260:
        directory = directory / ("d" * 200)
    directory = directory / ("e" * (limit - 1 - len(str(directory)) - 1 - 5))
    os.makedirs(directory)
    return directory


def test_probing_a_gitignore_that_cannot_be_stat_ed_skips_it_instead_of_raising(tmp_path: Path) -> None:
    # As root chmod 000 does not stop stat(); a name past PATH_MAX fails it for everyone.
    directory = _directory_near_path_max(tmp_path)
    with pytest.raises(OSError):
        (directory / ".gitignore").is_file()
    found = discover([directory], tmp_path, ())
    assert found.files == () and found.problems == ()


def test_missing_paths_lists_only_paths_that_name_nothing(tmp_path: Path) -> None:
    present = touch(tmp_path / "a.py")
    (tmp_path / "dangling.py").symlink_to(tmp_path / "gone.py")
    assert missing_paths([present, tmp_path / "nope.py", tmp_path / "dangling.py", tmp_path / "a.py" / "x"]) == (
        tmp_path / "nope.py",
        tmp_path / "a.py" / "x",
    )


def test_require_existing_raises_one_error_naming_every_missing_path(tmp_path: Path) -> None:
    with pytest.raises(MissingPathError) as caught:
        require_existing([tmp_path / "one.py", tmp_path, tmp_path / "two"])
    assert caught.value.paths == (tmp_path / "one.py", tmp_path / "two")
    assert str(caught.value).splitlines() == [
        f"{tmp_path / 'one.py'}: no such file or directory",
        f"{tmp_path / 'two'}: no such file or directory",
    ]


def test_a_link_to_a_file_outside_the_linted_tree_is_not_writable(tmp_path: Path) -> None:
    tree, outside = tmp_path / "tree", touch(tmp_path / "elsewhere" / "victim.py")
    touch(tree / "own.py")
    (tree / "alias.py").symlink_to(outside)
    (tree / "inner.py").symlink_to(tree / "own.py")
    found = discover([tree], tree, ())
    writable = {path.name: resolves_inside(path, [tree]) for path in found.files}
    assert writable == {"alias.py": False, "inner.py": True, "own.py": True}


def test_a_link_named_on_the_command_line_is_writable_because_its_target_was_named(tmp_path: Path) -> None:
    outside = touch(tmp_path / "elsewhere" / "victim.py")
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "alias.py").symlink_to(outside)
    assert resolves_inside(tmp_path / "tree" / "alias.py", [tmp_path / "tree" / "alias.py", tmp_path / "tree"])


def test_loops_and_broken_links_are_never_writable(tmp_path: Path) -> None:
    (tmp_path / "loop.py").symlink_to(tmp_path / "loop.py")
    (tmp_path / "dangling.py").symlink_to(tmp_path / "gone.py")
    assert not resolves_inside(tmp_path / "loop.py", [tmp_path])
    assert not resolves_inside(tmp_path / "dangling.py", [tmp_path])


def test_project_relative_sees_through_a_symlinked_directory(tmp_path: Path) -> None:
    touch(tmp_path / "project" / "pkg" / "a.py")
    (tmp_path / "shortcut").symlink_to(tmp_path / "project" / "pkg")
    assert project_relative(tmp_path / "shortcut" / "a.py", tmp_path / "project") == "pkg/a.py"
    assert project_relative(tmp_path / "project" / "pkg" / "a.py", tmp_path / "project") == "pkg/a.py"
    assert project_relative(tmp_path / "a.py", tmp_path / "project") is None


FAST_PATH_MODULES = (
    "torchcheck.config",
    "torchcheck.lint.files",
    "torchcheck.lint.diffs",
    "torchcheck.lint.writing",
    "torchcheck.lint.noqa",
)


@pytest.mark.parametrize("module", FAST_PATH_MODULES)
def test_fast_path_modules_import_only_the_standard_library_and_each_other(module: str) -> None:
    # They run on a fully cached run, where neither libcst nor torch may be loaded.
    tree = ast.parse(Path(importlib.import_module(module).__file__ or "").read_text(encoding="utf-8"))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    outside = {name for name in imported if name.split(".")[0] not in sys.stdlib_module_names}
    # The unused-noqa check needs the rule catalogue and the finding types: plain data, no parser.
    light = {"torchcheck.lint.suppression", "torchcheck.lint.catalogue", "torchcheck.lint.diagnostic"}
    assert outside <= {"__future__", "tomli", *light}


def test_importing_the_fast_path_modules_loads_neither_libcst_nor_torch() -> None:
    script = f"import sys\nfor name in {FAST_PATH_MODULES!r}: __import__(name)\nprint(sorted(sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert "'libcst'" not in loaded and "'torch'" not in loaded


def test_a_directory_tree_deeper_than_the_recursion_limit_is_walked(tmp_path: Path) -> None:
    depth = sys.getrecursionlimit() // 2 + 50  # two frames per level were enough to fail
    deepest = tmp_path.joinpath(*["d"] * depth)
    deepest.mkdir(parents=True)
    touch(deepest / "x.py")
    touch(tmp_path / "a.py")
    found = discover([tmp_path], tmp_path, [])
    assert names(found, tmp_path) == ["a.py", "/".join(["d"] * depth) + "/x.py"]
    assert found.problems == ()


def test_a_deep_tree_keeps_the_depth_first_order_of_the_recursive_walk(tmp_path: Path) -> None:
    for name in ("b/c/z.py", "b/a.py", "b/c/d/e.py", "a.py", "c.py", "b/d.py"):
        touch(tmp_path / name)
    assert names(discover([tmp_path], tmp_path, []), tmp_path) == ["a.py", "b/a.py", "b/c/d/e.py", "b/c/z.py", "b/d.py", "c.py"]
