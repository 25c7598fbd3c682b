"""pyproject.toml settings, file discovery, .gitignore, and the on-disk cache."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from torchcheck.cli import main
from torchcheck.lint.api import LintOptions, lint

MISTAKE = "import torch\nx = torch.ones(3).cuda()\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def codes(root: Path, **options) -> list[tuple[str, str]]:
    result = lint(LintOptions(paths=(root,), use_cache=False, **options))
    return [(Path(d.filename).name, d.code) for d in result.diagnostics]


def test_pyproject_select_and_per_file_ignores_apply(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", """
        [tool.torchcheck]
        select = ["TCK2"]
        per-file-ignores = { "tests/*" = ["TCK201"] }
    """)
    write(tmp_path / "src/a.py", MISTAKE)
    write(tmp_path / "tests/test_a.py", MISTAKE)
    assert codes(tmp_path) == [("a.py", "TCK201")]


def test_nearest_pyproject_with_a_torchcheck_section_wins(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.torchcheck]\nignore = ["TCK201"]\n')
    write(tmp_path / "pkg/pyproject.toml", "[project]\nname = 'pkg'\n")  # no section: keep walking up
    write(tmp_path / "pkg/a.py", MISTAKE)
    assert codes(tmp_path / "pkg") == []


def test_extend_select_enables_opt_in_rules_and_all_selects_everything(tmp_path: Path) -> None:
    write(tmp_path / "a.py", MISTAKE)
    from torchcheck.config import Config
    from torchcheck.lint.api import select_rules
    from torchcheck.lint.registry import all_rules

    everything = select_rules(LintOptions(select=("ALL",)), Config(root=tmp_path))
    assert [rule.code for rule in everything] == [rule.code for rule in all_rules()]
    defaults = select_rules(LintOptions(), Config(root=tmp_path))
    assert all(rule.default_enabled for rule in defaults)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ('[tool.torchcheck]\nselcet = ["TCK1"]\n', "unknown key 'selcet'"),
        ('[tool.torchcheck]\nselect = ["TCK999"]\n', "unknown rule code or name 'TCK999'"),
        ('[tool.torchcheck]\nselect = "TCK1"\n', "select must be a list of strings"),
        ("[tool.torchcheck\n", "invalid TOML"),
    ],
)
def test_bad_config_exits_two_naming_the_key_and_file(tmp_path, monkeypatch, capsys, settings: str, message: str) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "pyproject.toml", settings)
    write(tmp_path / "a.py", MISTAKE)
    assert main(["lint", "--no-cache", "."]) == 2
    err = capsys.readouterr().err
    assert message in err and "pyproject.toml" in err and "Traceback" not in err


def test_explicit_config_file_is_used(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "custom.toml", '[tool.torchcheck]\nignore = ["TCK201"]\n')
    write(tmp_path / "a.py", MISTAKE)
    assert main(["lint", "--no-cache", "--config", "custom.toml", "."]) == 0


def test_discovery_skips_virtualenvs_build_dirs_and_gitignored_files(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path / ".gitignore", "generated/\n*_pb2.py\n!keep_pb2.py\n")
    for name in ("a.py", "stubs.pyi", ".venv/lib/x.py", "build/x.py", "dist/x.py", "pkg/__pycache__/x.py",
                 "lib/site-packages/x.py", "generated/x.py", "proto_pb2.py", "keep_pb2.py", "notes.txt"):
        write(tmp_path / name, MISTAKE)
    assert sorted(name for name, _ in codes(tmp_path)) == ["a.py", "keep_pb2.py", "stubs.pyi"]


def test_explicit_file_arguments_are_always_linted(tmp_path: Path) -> None:
    write(tmp_path / "build/x.py", MISTAKE)
    assert codes(tmp_path / "build" / "x.py") == [("x.py", "TCK201")]


def test_exclude_and_extend_exclude(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.torchcheck]\nextend-exclude = ["legacy"]\n')
    write(tmp_path / "legacy/x.py", MISTAKE)
    write(tmp_path / "new/x.py", MISTAKE)
    assert codes(tmp_path) == [("x.py", "TCK201")]


def test_cache_returns_the_same_findings_and_invalidates_on_change(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    target = write(tmp_path / "a.py", MISTAKE)
    first = lint(LintOptions(paths=(tmp_path,)))
    cache_file = next((tmp_path / ".torchcheck_cache").glob("findings-*.json"))
    assert cache_file.exists()
    stored = json.loads(cache_file.read_text())
    assert len(stored["entries"]) == 1
    # A cache hit must not parse: poison the stored entry and see it come back verbatim.
    key = next(iter(stored["entries"]))
    stored["entries"][key][1][0]["message"] = "from the cache"
    cache_file.write_text(json.dumps(stored))
    second = lint(LintOptions(paths=(tmp_path,)))
    assert [d.message for d in second.diagnostics] == ["from the cache"]
    target.write_text(MISTAKE + "y = torch.zeros(2).cuda()\n")
    third = lint(LintOptions(paths=(tmp_path,)))
    assert [d.location.row for d in third.diagnostics] == [2, 3]
    assert first.diagnostics[0].message != "from the cache"


def test_output_order_is_stable_across_parallel_runs(tmp_path: Path) -> None:
    for index in range(20):
        write(tmp_path / f"m{index:02d}.py", MISTAKE * 2)
    serial = lint(LintOptions(paths=(tmp_path,), use_cache=False, jobs=1)).diagnostics
    parallel = lint(LintOptions(paths=(tmp_path,), use_cache=False, jobs=2)).diagnostics
    assert serial == parallel and len(serial) == 40
