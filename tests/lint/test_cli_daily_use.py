"""What a user meets every day: pre-commit, the cache, stdin for editors, start-up, exit codes.

Each test reproduces a problem a user reported: the command line must never rewrite an
excluded file, evict other files' cache entries, import libcst to answer from the cache,
or let a tool failure look like findings.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from torchcheck.cli import OUTPUT_FORMATS, main
from torchcheck.lint.api import LintOptions, lint
from torchcheck.lint.cache import CACHE_DIRECTORY

MISTAKE = "import torch\nx = torch.ones(3).cuda()\n"
FIXED = 'import torch\nx = torch.ones(3, device="cuda")\n'


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "pyproject.toml", '[tool.torchcheck]\nextend-exclude = ["third_party"]\n')
    write(tmp_path / "src/train.py", MISTAKE)
    write(tmp_path / "third_party/vendored.py", MISTAKE)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["lint", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def cache_entries(root: Path) -> int:
    document = json.loads(next((root / CACHE_DIRECTORY).glob("findings-*.json")).read_text())
    return len(document["entries"])


def run_python(code: str, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, input=stdin, capture_output=True, check=False)


# ----------------------------------------------------------------------------- excludes


def test_force_exclude_keeps_a_named_vendored_file_untouched_by_fix(project: Path, capsys) -> None:
    code, out, _ = run(capsys, "--no-cache", "--fix", "--force-exclude", "src/train.py", "third_party/vendored.py")
    assert (project / "third_party/vendored.py").read_text() == MISTAKE
    assert (project / "src/train.py").read_text() == FIXED
    assert code == 0 and "vendored" not in out


def test_without_force_exclude_a_named_file_is_linted_as_before(project: Path, capsys) -> None:
    code, out, _ = run(capsys, "--no-cache", "--output-format", "concise", "third_party/vendored.py")
    assert code == 1 and "third_party/vendored.py:2:5: TCK201" in out


def test_exclude_and_extend_exclude_on_the_command_line(project: Path, capsys) -> None:
    write(project / "scripts/tool.py", MISTAKE)
    out = run(capsys, "--no-cache", "--output-format", "concise", "--extend-exclude", "scripts", ".")[1]
    assert "src/train.py" in out and "scripts/" not in out and "third_party" not in out
    out = run(capsys, "--no-cache", "--output-format", "concise", "--exclude", "src", ".")[1]
    assert "src/train.py" not in out and "scripts/tool.py" in out
    assert "third_party" not in out  # the config's extend-exclude still applies, as in ruff


def test_the_pre_commit_hooks_force_excludes() -> None:
    hooks = (Path(__file__).resolve().parents[2] / ".pre-commit-hooks.yaml").read_text()
    entries = [line for line in hooks.splitlines() if line.strip().startswith("entry:")]
    assert len(entries) == 2 and all("--force-exclude" in entry for entry in entries)


# ----------------------------------------------------------------------------- cache


def test_linting_one_file_keeps_the_other_files_cache_entries(project: Path, capsys) -> None:
    for index in range(5):
        write(project / f"src/module_{index}.py", f"import torch\ny{index} = torch.zeros(2).cuda()\n")
    run(capsys, ".")
    full = cache_entries(project)
    assert full == 6
    write(project / "src/train.py", MISTAKE + "# edited\n")
    run(capsys, "src/train.py")
    assert cache_entries(project) == full + 1  # the edited version is added, nothing evicted


def test_paths_under_one_project_share_one_cache(project: Path, capsys) -> None:
    write(project / "tests/test_train.py", MISTAKE)
    run(capsys, "src", "tests")
    assert [path.name for path in project.rglob(CACHE_DIRECTORY)] == [CACHE_DIRECTORY]
    assert cache_entries(project) == 2


@pytest.mark.parametrize("content", ["[]", "null", '{"version": 2, "entries": []}', "{not json"])
def test_a_cache_file_of_the_wrong_shape_counts_as_empty(project: Path, capsys, content: str) -> None:
    run(capsys, "src")
    cache_file = next((project / CACHE_DIRECTORY).glob("findings-*.json"))
    cache_file.write_text(content)
    code, out, err = run(capsys, "--output-format", "concise", "src")
    assert code == 1 and "src/train.py:2:5: TCK201" in out and "Traceback" not in err
    assert cache_entries(project) == 1


def test_a_fully_cached_run_imports_neither_libcst_nor_the_rules(project: Path, capsys) -> None:
    run(capsys, "src")
    script = (
        "import sys\nfrom torchcheck.cli import main\ncode = main(['lint', '--output-format', 'concise', 'src'])\n"
        "print(code, 'libcst' in sys.modules, any(m.startswith('torchcheck.rules') for m in sys.modules))\n"
    )
    result = run_python(script, project)
    assert result.stdout.decode().splitlines()[-1] == "1 False False", result.stderr.decode()
    assert b"src/train.py:2:5: TCK201" in result.stdout


@pytest.mark.parametrize("arguments", [["--version"], ["--help"], ["rules"], ["rule", "TCK101"], ["lint", "--help"]])
def test_commands_that_parse_nothing_import_neither_libcst_nor_the_rules(tmp_path: Path, arguments: list[str]) -> None:
    script = (
        f"import sys\nfrom torchcheck.cli import main\ntry:\n    main({arguments!r})\nexcept SystemExit:\n    pass\n"
        "print('libcst' in sys.modules, any(m.startswith('torchcheck.rules') for m in sys.modules), file=sys.stderr)\n"
    )
    result = run_python(script, tmp_path)
    assert result.stderr.decode().splitlines()[-1] == "False False"


def test_the_cli_knows_every_output_format() -> None:
    from torchcheck.lint.formats import FORMAT_NAMES

    assert set(OUTPUT_FORMATS) == set(FORMAT_NAMES)


def test_rule_prints_the_same_page_as_the_generated_docs(capsys) -> None:
    assert main(["rule", "TCK101"]) == 0
    page = (Path(__file__).resolve().parents[2] / "rules" / "TCK101.md").read_text()
    assert page.endswith(capsys.readouterr().out)


# ----------------------------------------------------------------------------- parallelism and crashes


def test_explicit_file_lists_are_linted_by_the_process_pool(project: Path) -> None:
    names = []
    for index in range(10):
        names.append(write(project / f"many/m{index}.py", f"import torch\nz{index} = torch.ones(1).cuda()\n"))
    script = (
        "import concurrent.futures, sys\nfrom torchcheck.lint.api import LintOptions, lint\n"
        "started = []\noriginal = concurrent.futures.ProcessPoolExecutor.__init__\n"
        "def counting(self, *a, **k):\n    started.append(1)\n    original(self, *a, **k)\n"
        "concurrent.futures.ProcessPoolExecutor.__init__ = counting\n"
        f"result = lint(LintOptions(paths=tuple(map(__import__('pathlib').Path, {[str(n) for n in names]!r})), use_cache=False, jobs=2))\n"
        "print(len(started), len(result.diagnostics))\n"
    )
    result = run_python(script, project)
    assert result.stdout.decode().split() == ["1", "10"], result.stderr.decode()


def test_a_worker_that_dies_costs_only_its_own_file(project: Path) -> None:
    names = [write(project / f"many/m{index}.py", f"import torch\nz{index} = torch.ones(1).cuda()\n") for index in range(10)]
    crashing = write(project / "many/crash.py", "import torch\n# CRASH-THE-WORKER\nx = torch.ones(1).cuda()\n")
    # A stand-in for a native parser crash: the worker process dies on one file.
    script = (
        "import os, pathlib\nimport torchcheck.lint.api as api\noriginal = api._run_task\n"
        "def dying(task):\n    if b'CRASH-THE-WORKER' in task.source:\n        os._exit(139)\n    return original(task)\n"
        "api._run_task = dying\n"
        f"paths = tuple(map(pathlib.Path, {[str(n) for n in [*names, crashing]]!r}))\n"
        "result = api.lint(api.LintOptions(paths=paths, use_cache=False, jobs=2))\n"
        "for d in result.diagnostics: print(d.filename, d.code, d.message)\n"
    )
    result = run_python(script, project)
    lines = result.stdout.decode().splitlines()
    assert result.returncode == 0, result.stderr.decode()
    assert sum("TCK201" in line for line in lines) == 10
    assert any(line.startswith("many/crash.py TCK000") and "crashed" in line for line in lines)


# ----------------------------------------------------------------------------- exit codes and errors


def test_a_path_that_does_not_exist_is_a_usage_error(project: Path, capsys) -> None:
    code, out, err = run(capsys, "nope.py")
    assert code == 2 and "nope.py: no such file or directory" in err and out == ""


def test_an_internal_error_exits_two_not_one(project: Path, monkeypatch, capsys) -> None:
    import torchcheck.lint.api as api

    def broken(options: LintOptions) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(api, "lint", broken)
    code, _, err = run(capsys, "--no-cache", "src")
    assert code == 2 and "internal error: RuntimeError: boom" in err


def test_fix_on_a_read_only_file_reports_it_and_fixes_the_others(project: Path, capsys) -> None:
    write(project / "src/other.py", MISTAKE)
    locked = project / "src/train.py"
    locked.chmod(0o444)
    try:
        code, out, err = run(capsys, "--no-cache", "--fix", "--output-format", "concise", "src")
    finally:
        locked.chmod(0o644)
    assert (project / "src/other.py").read_text() == FIXED
    assert locked.read_text() == MISTAKE
    assert "src/train.py: not fixed" in err and "src/train.py:2:5: TCK201" in out
    assert code == 2


def test_fix_never_writes_through_a_link_to_a_file_outside_the_tree(tmp_path: Path, monkeypatch, capsys) -> None:
    outside = write(tmp_path / "outside/target.py", MISTAKE)
    tree = tmp_path / "tree"
    write(tree / "a.py", MISTAKE)
    (tree / "link.py").symlink_to(outside)
    monkeypatch.chdir(tree)
    run(capsys, "--no-cache", "--fix", ".")
    assert outside.read_text() == MISTAKE and (tree / "a.py").read_text() == FIXED


def test_exit_non_zero_on_fix(project: Path, capsys) -> None:
    assert run(capsys, "--no-cache", "--fix", "--exit-non-zero-on-fix", "src")[0] == 1
    assert run(capsys, "--no-cache", "--fix", "--exit-non-zero-on-fix", "src")[0] == 0


# ----------------------------------------------------------------------------- output


@pytest.mark.parametrize("output_format", ["json", "sarif"])
def test_statistics_keep_json_and_sarif_documents_valid(project: Path, capsys, output_format: str) -> None:
    code, out, _ = run(capsys, "--no-cache", "--statistics", "--output-format", output_format, "src")
    document = json.loads(out)
    assert code == 1 and document


def test_output_file_receives_the_findings(project: Path, capsys) -> None:
    code, out, _ = run(capsys, "--no-cache", "--output-format", "json", "--output-file", "report.json", "src")
    assert code == 1 and out == ""
    assert json.loads((project / "report.json").read_text())[0]["code"] == "TCK201"


def test_show_files_lists_what_would_be_linted(project: Path, capsys) -> None:
    code, out, _ = run(capsys, "--show-files", ".")
    assert code == 0 and out.split() == ["src/train.py"]


def test_show_settings_names_the_config_and_the_rules(project: Path, capsys) -> None:
    code, out, _ = run(capsys, "--show-settings", "--select", "TCK2", ".")
    assert code == 0 and str(project / "pyproject.toml") in out and "third_party" in out and "TCK201" in out
    assert "TCK101" not in out


def test_a_non_utf8_file_name_prints_under_a_strict_stdout_encoding(tmp_path: Path) -> None:
    name = os.fsdecode(b"caf\xe9.py")
    (tmp_path / name).write_text(MISTAKE)
    environment = {**os.environ, "PYTHONIOENCODING": "ascii:strict"}
    result = subprocess.run(
        [sys.executable, "-m", "torchcheck", "lint", "--no-cache", "--output-format", "concise", "."],
        cwd=tmp_path, capture_output=True, env=environment, check=False,
    )
    assert result.returncode == 1 and b"Traceback" not in result.stderr
    assert b"TCK201" in result.stdout


# ----------------------------------------------------------------------------- editors and adoption


def test_stdin_is_linted_under_its_stdin_filename(project: Path) -> None:
    command = [sys.executable, "-m", "torchcheck", "lint", "--no-cache", "--output-format", "concise", "--stdin-filename", "src/editor.py", "-"]
    result = subprocess.run(command, cwd=project, input=MISTAKE.encode(), capture_output=True, check=False)
    assert result.returncode == 1 and b"src/editor.py:2:5: TCK201" in result.stdout


def test_stdin_fix_prints_the_fixed_source(project: Path) -> None:
    command = [sys.executable, "-m", "torchcheck", "lint", "--no-cache", "--fix", "--stdin-filename", "src/editor.py", "-"]
    result = subprocess.run(command, cwd=project, input=MISTAKE.encode(), capture_output=True, check=False)
    assert result.stdout == FIXED.encode() and result.returncode == 0


def test_stdin_honours_the_config_of_its_path_with_force_exclude(project: Path) -> None:
    command = [sys.executable, "-m", "torchcheck", "lint", "--no-cache", "--force-exclude", "--fix", "--stdin-filename", "third_party/v.py", "-"]
    result = subprocess.run(command, cwd=project, input=MISTAKE.encode(), capture_output=True, check=False)
    assert result.stdout == MISTAKE.encode() and result.returncode == 0


def test_add_noqa_silences_every_finding_once(project: Path, capsys) -> None:
    write(project / "src/loop.py", """\
        import torch
        losses = []
        for x, y in loader:
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            losses.append(loss)
        mask = torch.ones(3).cuda()
    """)
    code, out, _ = run(capsys, "--no-cache", "--add-noqa", "src")
    assert code == 0 and "Added 4 noqa directives." in out
    assert "losses.append(loss)  # noqa: TCK101" in (project / "src/loop.py").read_text()
    before = (project / "src/loop.py").read_text()
    assert run(capsys, "--no-cache", "src")[0] == 0
    run(capsys, "--no-cache", "--add-noqa", "src")
    assert (project / "src/loop.py").read_text() == before


def test_a_config_file_without_a_torchcheck_table_is_an_error(project: Path, capsys) -> None:
    write(project / "other.toml", "[tool.ruff]\nline-length = 100\n")
    code, _, err = run(capsys, "--no-cache", "--config", "other.toml", "src")
    assert code == 2 and "other.toml" in err and "[tool.torchcheck]" in err


def test_a_file_above_the_size_limit_is_skipped_with_a_finding(project: Path, capsys) -> None:
    write(project / "pyproject.toml", '[tool.torchcheck]\nmax-file-size = "1KB"\n')
    write(project / "src/huge.py", "x = 1\n" * 400)
    code, out, _ = run(capsys, "--no-cache", "--output-format", "concise", "src")
    assert "src/huge.py:1:1: TCK000" in out and "max-file-size" in out
    assert "src/train.py:2:5: TCK201" in out and code == 1


def test_lint_api_still_reports_files_checked(project: Path) -> None:
    result = lint(LintOptions(paths=(project / "src",), use_cache=False))
    assert result.files_checked == 1 and [d.code for d in result.diagnostics] == ["TCK201"]


def test_cache_entries_unused_for_a_long_time_are_evicted(tmp_path: Path) -> None:
    from torchcheck.lint.cache import MAX_AGE_SECONDS, FindingsCache

    old = FindingsCache(tmp_path, now=1_000.0)
    old.put("stale", [])
    old.save()
    recent = FindingsCache(tmp_path, now=1_000.0 + MAX_AGE_SECONDS / 2)
    recent.put("fresh", [])
    recent.save()
    assert len(FindingsCache(tmp_path, now=1_000.0 + MAX_AGE_SECONDS / 2)) == 2
    later = FindingsCache(tmp_path, now=1_000.0 + MAX_AGE_SECONDS + 1)
    later.put("newest", [])
    later.save()
    reloaded = FindingsCache(tmp_path)
    assert reloaded.get("stale") is None and reloaded.get("fresh") == () and reloaded.get("newest") == ()
