"""The command line behaves like ruff's where users bring ruff's habits (issue 21).

Standard input whenever ``--stdin-filename`` is given, repeatable flags that accumulate, a
command-line ``--select`` that replaces the configured selection, inline ``--config KEY =
VALUE`` overrides, ``--unsafe-fixes`` shown without ``--fix``, real plurals, relative paths
outside the working directory, ``rules --output-format json`` and statistics that replace
the findings in every format.
"""

from __future__ import annotations

import io
import json
import textwrap
from pathlib import Path

import pytest

from torchcheck.cli import main

MISTAKE = "import torch\nx = torch.ones(3).cuda()\n"
CLEAN = "import torch\nx = torch.ones(3, device='cuda')\n"
# TCK201 (safe fix), TCK105 (safe fix) and TCK101 (unsafe fix), one of each.
THREE_RULES = textwrap.dedent(
    """\
    import torch
    from torch import nn

    mask = torch.ones(3).cuda()
    layer = nn.Linear(2, 2)
    out = layer.forward(mask)
    losses = []
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss)
    """
)
ONLY_UNSAFE = "losses = []\nfor x, y in loader:\n    loss = criterion(model(x), y)\n    loss.backward()\n    optimizer.step()\n    optimizer.zero_grad()\n    losses.append(loss)\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "pyproject.toml", '[tool.torchcheck]\nextend-exclude = ["third_party"]\n')
    write(tmp_path / "src/train.py", MISTAKE)
    write(tmp_path / "third_party/vendored.py", MISTAKE)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["lint", "--no-cache", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def feed_stdin(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))


def enabled_rules(capsys: pytest.CaptureFixture[str], *args: str) -> list[str]:
    code, out, err = run(capsys, "--show-settings", *args)
    assert code == 0, err
    line = next(line for line in out.splitlines() if line.startswith("rules ("))
    return line.split(": ", 1)[1].split(", ") if ": " in line else []


# ----------------------------------------------------------------------------- 1. --stdin-filename reads stdin


def test_stdin_filename_without_a_dash_lints_standard_input_not_the_tree(project: Path, capsys, monkeypatch) -> None:
    feed_stdin(monkeypatch, CLEAN)
    code, out, _ = run(capsys, "--output-format", "concise", "--stdin-filename", "src/train.py")
    assert code == 0 and "TCK201" not in out and "1 file checked" in out


def test_stdin_filename_without_a_dash_reports_the_buffer_under_its_name(project: Path, capsys, monkeypatch) -> None:
    feed_stdin(monkeypatch, MISTAKE)
    code, out, _ = run(capsys, "--output-format", "concise", "--stdin-filename", "src/editor.py")
    assert code == 1 and "src/editor.py:2:5: TCK201" in out and "src/train.py" not in out


def test_paths_named_beside_stdin_filename_are_ignored_with_a_warning(project: Path, capsys, monkeypatch) -> None:
    feed_stdin(monkeypatch, CLEAN)
    code, out, err = run(capsys, "--stdin-filename", "src/editor.py", "src/train.py")
    assert code == 0 and "TCK201" not in out
    assert "Ignoring file src/train.py in favor of standard input" in err


# ----------------------------------------------------------------------------- 2. repeated flags, --select precedence


@pytest.mark.parametrize("flag", ["--select", "--extend-select"])
def test_a_repeated_selection_flag_accumulates(project: Path, capsys, flag: str) -> None:
    rules = enabled_rules(capsys, "--select", "TCK101", flag, "TCK104", flag, "TCK105")
    assert rules == ["TCK101", "TCK104", "TCK105"]


def test_a_repeated_ignore_accumulates(project: Path, capsys) -> None:
    rules = enabled_rules(capsys, "--select", "TCK10", "--ignore", "TCK101", "--ignore", "TCK102,TCK103")
    assert "TCK104" in rules and not {"TCK101", "TCK102", "TCK103"} & set(rules)


def test_a_repeated_exclude_accumulates(project: Path, capsys) -> None:
    write(project / "scripts/tool.py", MISTAKE)
    write(project / "tools/other.py", MISTAKE)
    out = run(capsys, "--show-files", "--extend-exclude", "scripts", "--extend-exclude", "tools", ".")[1]
    assert out.split() == ["src/train.py"]
    out = run(capsys, "--show-files", "--exclude", "scripts", "--exclude", "src", ".")[1]
    assert out.split() == ["tools/other.py"]  # the configured extend-exclude still applies


def test_command_line_select_overrides_the_configured_ignore(project: Path, capsys) -> None:
    write(project / "pyproject.toml", '[tool.torchcheck]\nignore = ["TCK201"]\n')
    code, out, _ = run(capsys, "--output-format", "concise", "--select", "TCK201", "src")
    assert code == 1 and "src/train.py:2:5: TCK201" in out


def test_command_line_select_drops_the_configured_select_and_extend_select(project: Path, capsys) -> None:
    write(project / "pyproject.toml", '[tool.torchcheck]\nselect = ["TCK1"]\nextend-select = ["TCK107"]\n')
    assert enabled_rules(capsys, "--select", "TCK201") == ["TCK201"]
    assert enabled_rules(capsys, "--select", "TCK201", "--extend-select", "TCK202") == ["TCK201", "TCK202"]


def test_command_line_extend_select_re_enables_a_configured_ignore(project: Path, capsys) -> None:
    write(project / "pyproject.toml", '[tool.torchcheck]\nselect = ["TCK2"]\nignore = ["TCK201"]\n')
    assert "TCK201" not in enabled_rules(capsys)
    assert "TCK201" in enabled_rules(capsys, "--extend-select", "TCK201")
    # ...while a command-line --ignore still removes configured rules, prefixes included
    assert not [code for code in enabled_rules(capsys, "--ignore", "TCK20") if code.startswith("TCK20")]


def test_lint_help_states_the_precedence_of_select(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["lint", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "repeatable" in help_text and "overrides the configured select, extend-select and ignore" in help_text


# ----------------------------------------------------------------------------- 3. --config KEY = VALUE


def test_inline_config_override_applies(project: Path, capsys) -> None:
    code, out, _ = run(capsys, "--output-format", "concise", "--config", "ignore = ['TCK201']", "src")
    assert code == 0 and "TCK201" not in out


def test_inline_config_overrides_take_precedence_over_the_discovered_file(project: Path, capsys) -> None:
    write(project / "pyproject.toml", '[tool.torchcheck]\nignore = ["TCK201"]\n')
    code, out, _ = run(capsys, "--output-format", "concise", "--config", "ignore = []", "src")
    assert code == 1 and "src/train.py:2:5: TCK201" in out


def test_inline_config_overrides_repeat_and_combine_with_a_config_file(project: Path, capsys) -> None:
    write(project / "other.toml", '[tool.torchcheck]\nselect = ["TCK2"]\n')
    args = ("--config", "other.toml", "--config", "ignore = ['TCK202']", "--config", 'target-version = "2.1"')
    code, out, _ = run(capsys, "--show-settings", *args, ".")
    assert code == 0 and "other.toml" in out and "target-version: 2.1" in out
    rules = enabled_rules(capsys, *args, ".")
    assert "TCK201" in rules and "TCK202" not in rules and "TCK101" not in rules


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("ignore = TCK201", "TOML"),  # an unquoted string
        ("colour = true", "unknown key 'colour'"),
        ("ignore = 5", "ignore must be a list of strings"),
        ("ignore = ['TCK999']", "unknown rule code or name 'TCK999'"),
    ],
)
def test_a_bad_inline_config_override_is_a_usage_error(project: Path, capsys, override: str, message: str) -> None:
    code, out, err = run(capsys, "--config", override, "src")
    assert code == 2 and out == "" and "--config" in err and message in err and "Traceback" not in err


def test_two_config_files_are_a_usage_error(project: Path, capsys) -> None:
    write(project / "a.toml", "[tool.torchcheck]\n")
    write(project / "b.toml", "[tool.torchcheck]\n")
    code, _, err = run(capsys, "--config", "a.toml", "--config", "b.toml", "src")
    assert code == 2 and "one --config file" in err


# ----------------------------------------------------------------------------- 4. --unsafe-fixes without --fix


def test_unsafe_fixes_without_fix_marks_unsafe_fixable_findings_and_counts_them(project: Path, capsys) -> None:
    write(project / "src/train.py", THREE_RULES)
    out = run(capsys, "--output-format", "concise", "--unsafe-fixes", "src")[1]
    assert "TCK101 [*]" in out and "TCK201 [*]" in out
    assert "[*] 3 fixable with `torchcheck lint --fix --unsafe-fixes`." in out


def test_without_unsafe_fixes_the_hidden_fixes_are_counted_as_ruff_does(project: Path, capsys) -> None:
    write(project / "src/train.py", THREE_RULES)
    out = run(capsys, "--output-format", "concise", "src")[1]
    assert "TCK101 [*]" not in out and "TCK201 [*]" in out
    assert "[*] 2 fixable with `torchcheck lint --fix` (1 hidden fix can be enabled with the `--unsafe-fixes` option)." in out


def test_only_unsafe_fixes_says_no_fixes_are_available(project: Path, capsys) -> None:
    write(project / "src/train.py", ONLY_UNSAFE)
    out = run(capsys, "src")[1]
    assert "No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option)." in out


def test_statistics_with_unsafe_fixes_mark_unsafe_fixable_rules(project: Path, capsys) -> None:
    write(project / "src/train.py", ONLY_UNSAFE)
    assert "\t[*] loss-kept-with-graph" in run(capsys, "--statistics", "--unsafe-fixes", "src")[1]
    assert "[*]" not in run(capsys, "--statistics", "src")[1]


# ----------------------------------------------------------------------------- 5. plurals


def test_fixing_stdin_says_how_many_findings_without_naming_files(project: Path, capsys, monkeypatch) -> None:
    feed_stdin(monkeypatch, MISTAKE)
    code, out, err = run(capsys, "--fix", "--stdin-filename", "src/editor.py", "-")
    assert "Fixed 1 finding." in err and "file" not in err.split("Fixed", 1)[1].splitlines()[0]
    assert code == 0


def test_summaries_use_real_plurals(project: Path, capsys) -> None:
    out = run(capsys, "src")[1]
    assert "Found 1 finding in 1 file checked." in out and "(s)" not in out
    write(project / "src/more.py", MISTAKE + "y = torch.zeros(2).cuda()\n")
    out = run(capsys, "src")[1]
    assert "Found 3 findings in 2 files checked." in out and "(s)" not in out
    out = run(capsys, "--fix", "src")[1]
    assert "Fixed 3 findings in 2 files." in out and "All checks passed (2 files checked)." in out
    write(project / "src/more.py", MISTAKE)
    out = run(capsys, "--add-noqa", "src")[1]
    assert "Added 1 noqa directive." in out and "(s)" not in out


# ----------------------------------------------------------------------------- 6. relative paths


def test_a_file_outside_the_working_directory_prints_relative(tmp_path: Path, monkeypatch, capsys) -> None:
    write(tmp_path / "vendor/x.py", MISTAKE)
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    out = run(capsys, "--output-format", "concise", "../vendor/x.py")[1]
    assert out.startswith("../vendor/x.py:2:5: TCK201")
    out = run(capsys, "--output-format", "concise", str(tmp_path / "vendor"))[1]
    assert out.startswith("../vendor/x.py:2:5: TCK201")


# ----------------------------------------------------------------------------- 7. rules as JSON


def test_rules_as_json_describe_every_rule_like_ruffs_rule_all(capsys) -> None:
    assert main(["rules", "--output-format", "json"]) == 0
    rules = json.loads(capsys.readouterr().out)
    by_code = {rule["code"]: rule for rule in rules}
    assert by_code["TCK201"] == {
        "code": "TCK201",
        "name": "transfer-after-construction",
        "linter": "devices",
        "summary": by_code["TCK201"]["summary"],
        "message": by_code["TCK201"]["message"],
        "default": "on",
        "fix": "safe",
        "fix_title": by_code["TCK201"]["fix_title"],
        "explanation": by_code["TCK201"]["explanation"],
        "url": "https://github.com/torchcheck/torchcheck/blob/main/rules/TCK201.md",
    }
    assert by_code["TCK201"]["summary"].startswith("Checks for")
    assert by_code["TCK107"]["default"] == "opt-in" and by_code["TCK107"]["fix"] == "none"
    assert by_code["TCK101"]["linter"] == "training" and by_code["TCK101"]["fix"] == "unsafe"


def test_rules_as_text_is_still_the_default_table(capsys) -> None:
    assert main(["rules"]) == 0
    assert capsys.readouterr().out.startswith("CODE ")


# ----------------------------------------------------------------------------- 9. statistics replace findings


def test_statistics_in_github_format_list_no_finding(project: Path, capsys) -> None:
    code, out, err = run(capsys, "--statistics", "--output-format", "github", "src")
    assert code == 1 and "::error" not in out + err and "1\tTCK201\t[*] transfer-after-construction" in out


def test_statistics_in_sarif_format_list_no_finding(project: Path, capsys) -> None:
    code, out, err = run(capsys, "--statistics", "--output-format", "sarif", "src")
    assert code == 1 and "results" not in out + err and "2.1.0" not in out + err
    assert json.loads(out) == [{"code": "TCK201", "name": "transfer-after-construction", "count": 1, "fixable": True, "fixable_count": 1}]


# ----------------------------------------------------------------------------- 8. unused-noqa from the command line


def test_unused_noqa_is_reported_when_selected_and_fixed_by_fix(project: Path, capsys) -> None:
    write(project / "src/train.py", "import torch\na = torch.ones(3).cuda()  # noqa: TCK201\nb = torch.ones(3, device='cuda')  # noqa: TCK201, E501\n")
    assert run(capsys, "src")[0] == 0  # opt-in
    code, out, _ = run(capsys, "--output-format", "concise", "--extend-select", "unused-noqa", "src")
    assert code == 1 and "src/train.py:3:35: TCK001 [*] Unused `noqa` directive (unused: `TCK201`)" in out
    code, out, _ = run(capsys, "--extend-select", "TCK001", "--fix", "src")
    assert code == 0 and "Fixed 1 finding in 1 file." in out
    assert (project / "src/train.py").read_text().splitlines()[1:] == [
        "a = torch.ones(3).cuda()  # noqa: TCK201",
        "b = torch.ones(3, device='cuda')  # noqa: E501",
    ]
