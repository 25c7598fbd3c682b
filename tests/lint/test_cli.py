"""The command line end to end: exit codes, formats, fixes, config, suppression, robustness."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from torchcheck.cli import main

BUGGY = textwrap.dedent(
    """\
    import torch

    mask = torch.ones(3, 3).cuda()
    losses = []
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss)
    """
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text(BUGGY)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["lint", "--no-cache", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_findings_exit_one_and_print_path_line_column_and_caret(project: Path, capsys) -> None:
    code, out, _ = run(capsys, ".")
    assert code == 1
    assert "train.py:3:8: TCK201 [*] Tensor built on the CPU" in out
    assert "3 | mask = torch.ones(3, 3).cuda()" in out
    assert "  |        ^^^^^^^^^^^^^^^^^^^^^^^" in out
    assert "train.py:8:5: TCK102" in out and "train.py:9:5: TCK101" in out
    assert "\033[" not in out  # no colour when not a TTY


def test_clean_tree_exits_zero(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ok.py").write_text("import torch\nx = torch.ones(3, device='cuda')\n")
    assert run(capsys, ".")[0] == 0


def test_exit_zero_keeps_output_but_succeeds(project: Path, capsys) -> None:
    code, out, _ = run(capsys, ".", "--exit-zero")
    assert code == 0 and "TCK201" in out


def test_select_ignore_and_prefixes(project: Path, capsys) -> None:
    assert "TCK101" not in run(capsys, ".", "--select", "TCK2")[1]
    out = run(capsys, ".", "--ignore", "loss-kept-with-graph,TCK2", "--output-format", "concise")[1]
    assert "TCK101" not in out and "TCK201" not in out and "TCK102" in out


def test_unknown_code_on_command_line_is_a_usage_error(project: Path, capsys) -> None:
    code, _, err = run(capsys, ".", "--select", "TCK999")
    assert code == 2 and "'TCK999'" in err and "--select" in err


def test_json_output_uses_ruffs_schema(project: Path, capsys) -> None:
    code, out, _ = run(capsys, ".", "--output-format", "json")
    items = json.loads(out)
    assert code == 1 and {item["code"] for item in items} == {"TCK101", "TCK102", "TCK201"}
    first = next(item for item in items if item["code"] == "TCK201")
    assert set(first) == {"cell", "code", "end_location", "filename", "fix", "location", "message", "name", "noqa_row", "severity", "url"}
    assert first["location"] == {"column": 8, "row": 3} and first["end_location"] == {"column": 31, "row": 3}
    assert Path(first["filename"]).is_absolute()
    assert first["fix"]["applicability"] == "safe"
    assert first["fix"]["edits"] == [
        {"content": 'torch.ones(3, 3, device="cuda")', "end_location": {"column": 31, "row": 3}, "location": {"column": 8, "row": 3}}
    ]


def test_sarif_output_is_valid_sarif_2_1_0_with_rules_and_regions(project: Path, capsys) -> None:
    _, out, _ = run(capsys, ".", "--output-format", "sarif")
    document = json.loads(out)
    assert document["version"] == "2.1.0"
    run_ = document["runs"][0]
    rule_ids = [rule["id"] for rule in run_["tool"]["driver"]["rules"]]
    result = next(r for r in run_["results"] if r["ruleId"] == "TCK201")
    assert rule_ids[result["ruleIndex"]] == "TCK201"
    region = result["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 3, "startColumn": 8, "endLine": 3, "endColumn": 31}
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "train.py"


def test_github_output_prints_workflow_annotations(project: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("GITHUB_WORKSPACE", str(project))
    _, out, _ = run(capsys, ".", "--output-format", "github")
    assert "::error title=torchcheck (TCK201),file=train.py,line=3,col=8,endLine=3,endColumn=31::train.py:3:8: TCK201" in out


def test_statistics_counts_findings_per_rule(project: Path, capsys) -> None:
    out = run(capsys, ".", "--statistics", "--quiet")[1]
    assert "1\tTCK201\t[*] transfer-after-construction" in out


def test_fix_applies_safe_fixes_only_and_writes_a_parsable_file(project: Path, capsys) -> None:
    code, out, _ = run(capsys, ".", "--fix")
    fixed = (project / "train.py").read_text()
    assert 'torch.ones(3, 3, device="cuda")' in fixed
    assert "losses.append(loss)" in fixed  # unsafe fix not applied
    assert code == 1 and "Fixed 1 finding in 1 file." in out
    assert run(capsys, ".", "--fix")[1].count("Fixed") == 0  # idempotent


def test_unsafe_fixes_apply_with_the_flag(project: Path, capsys) -> None:
    run(capsys, ".", "--fix", "--unsafe-fixes")
    assert "losses.append(loss.item())" in (project / "train.py").read_text()


def test_diff_prints_changes_and_writes_nothing(project: Path, capsys) -> None:
    code, out, _ = run(capsys, ".", "--diff")
    assert code == 1
    assert '+mask = torch.ones(3, 3, device="cuda")' in out and "--- a/train.py" in out
    assert (project / "train.py").read_text() == BUGGY


def test_noqa_and_ignore_comments_suppress_findings(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(
        "import torch\n"
        "a = torch.ones(3).cuda()  # noqa: TCK201\n"
        "b = torch.ones(3).cuda()  # noqa\n"
        "c = torch.ones(3).cuda()  # torchcheck: ignore[TCK201]\n"
        "d = torch.ones(3).cuda()  # noqa: TCK101\n"
        "e = torch.ones(\n"
        "    3\n"
        ").cuda()  # noqa: transfer-after-construction\n"
    )
    out = run(capsys, ".", "--output-format", "concise")[1]
    assert out.count("TCK201") == 1 and "a.py:5:5: TCK201" in out


def test_skip_file_comment_skips_the_whole_file(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text("# torchcheck: skip-file\nimport torch\na = torch.ones(3).cuda()\n")
    assert run(capsys, ".")[0] == 0


def test_syntax_error_is_a_tck000_finding_and_the_run_goes_on(project: Path, capsys) -> None:
    (project / "broken.py").write_text("import torch\nx = torch.ones(3).cuda(\ndef f(:\n    pass\n")
    code, out, err = run(capsys, ".", "--output-format", "concise")
    assert code == 1 and "broken.py:" in out and "TCK000 syntax error" in out
    assert "train.py:3:8: TCK201" in out and "Traceback" not in out + err


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", None),
        (b"\xef\xbb\xbfimport torch\r\nx = torch.ones(3).cuda()\r\n", "TCK201"),
        (b"# -*- coding: latin-1 -*-\nimport torch\nname = '\xe9'\nx = torch.ones(3).cuda()\n", "TCK201"),
        (b"import torch\nname = '\xff\xfe'\n", "TCK000 cannot decode"),
    ],
    ids=["empty", "bom-crlf", "latin-1-cookie", "invalid-utf8"],
)
def test_odd_encodings_and_line_endings_never_crash(tmp_path: Path, monkeypatch, capsys, content: bytes, expected) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "odd.py").write_bytes(content)
    code, out, _ = run(capsys, "odd.py", "--output-format", "concise")
    if expected is None:
        assert code == 0
    else:
        assert expected in out


def test_fix_keeps_bom_and_crlf_line_endings(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "crlf.py").write_bytes(b"\xef\xbb\xbfimport torch\r\nx = torch.ones(3).cuda()\r\n")
    run(capsys, "crlf.py", "--fix")
    assert (tmp_path / "crlf.py").read_bytes() == b'\xef\xbb\xbfimport torch\r\nx = torch.ones(3, device="cuda")\r\n'


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read any file")
def test_unreadable_file_is_reported_not_raised(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    locked = tmp_path / "locked.py"
    locked.write_text("x = 1\n")
    locked.chmod(0)
    out = run(capsys, ".", "--output-format", "concise")[1]
    assert "locked.py:1:1: TCK000 cannot read file" in out


def test_missing_path_is_a_usage_error_not_a_finding(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "nope.py", "--output-format", "concise")
    assert code == 2 and out == "" and "nope.py: no such file or directory" in err


def test_rules_lists_every_rule_and_rule_prints_its_doc(capsys) -> None:
    assert main(["rules"]) == 0
    listing = capsys.readouterr().out
    assert "TCK201  transfer-after-construction" in listing.replace("  ", "  ")
    assert main(["rule", "loss-kept-with-graph"]) == 0
    assert "## Why is this bad?" in capsys.readouterr().out
    assert main(["rule", "TCK999"]) == 2


def test_python_dash_m_and_version_work() -> None:
    result = subprocess.run([sys.executable, "-m", "torchcheck", "--version"], capture_output=True, text=True, check=True)
    assert result.stdout.startswith("torchcheck ")
