"""`--fix` never loses a user's edit, never rewrites a file Python refuses, leaves nothing
behind when interrupted, and reaches a fixed point: a second `--fix` changes nothing."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from torchcheck.lint import api, engine, registry
from torchcheck.lint.api import LintOptions
from torchcheck.lint.engine import fix_source, lint_source
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid

LOAD = b"import torch\nx = torch.load(f)\n"
LOAD_FIXED = b"import torch\nx = torch.load(f, weights_only=True)\n"
RULES = list(registry.all_rules())


def fix_tree(path: Path) -> api.LintResult:
    return api.lint(LintOptions(paths=(path,), fix=True, unsafe_fixes=True, use_cache=False, jobs=1))


# ----------------------------------------------------------------------------- a file changed while the run lints


def test_a_file_saved_while_the_run_lints_keeps_the_users_edit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "target.py"
    target.write_bytes(LOAD)
    other = tmp_path / "other.py"
    other.write_bytes(LOAD)
    edited = LOAD + b"important_user_edit = 1\n"
    lint_everything = api._execute

    def user_saves_during_the_lint(tasks, jobs):  # type: ignore[no-untyped-def]
        results = lint_everything(tasks, jobs)
        target.write_bytes(edited)  # an editor saves after the file was read, before the fix is written
        return results

    monkeypatch.setattr(api, "_execute", user_saves_during_the_lint)
    result = fix_tree(tmp_path)
    assert target.read_bytes() == edited
    assert other.read_bytes() == LOAD_FIXED  # the other files are still fixed
    assert [Path(name).name for name in result.fixed_files] == ["other.py"]
    (problem,) = result.write_errors
    assert "target.py" in problem and "changed since it was read" in problem
    assert any(d.code == "TCK401" and d.filename.endswith("target.py") for d in result.diagnostics)


def test_the_command_line_says_the_file_changed_and_does_not_exit_as_fixed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from torchcheck.cli import main

    monkeypatch.chdir(tmp_path)
    target = tmp_path / "target.py"
    target.write_bytes(LOAD)
    lint_everything = api._execute

    def formatter_runs_during_the_lint(tasks, jobs):  # type: ignore[no-untyped-def]
        results = lint_everything(tasks, jobs)
        target.write_bytes(LOAD.replace(b"(f)", b"( f )"))
        return results

    monkeypatch.setattr(api, "_execute", formatter_runs_during_the_lint)
    code = main(["lint", "--no-cache", "--fix", "--unsafe-fixes", "target.py"])
    err = capsys.readouterr().err
    assert "target.py: not fixed: the file changed since it was read, so it was left as it is" in err
    assert code == 2 and target.read_bytes() == LOAD.replace(b"(f)", b"( f )")


# ----------------------------------------------------------------------------- files Python refuses


def test_a_nul_byte_is_tck000_where_it_is_and_fix_leaves_the_file_alone() -> None:
    source = b"import torch\nx = torch.load(f)  # a\x00b\n"
    (diagnostic,) = lint_source(source, "nul.py", RULES).diagnostics
    assert (diagnostic.code, diagnostic.location.row, diagnostic.location.column) == ("TCK000", 2, 23)
    assert "null bytes" in diagnostic.message
    assert fix_source(source, "nul.py", RULES, unsafe=True).fixed_source is None


def test_a_file_no_rule_parses_is_still_tck000_when_python_refuses_it() -> None:
    (diagnostic,) = lint_source(b'print "hello"\n', "py2.py", RULES).diagnostics
    assert diagnostic.code == "TCK000" and diagnostic.location.row == 1
    assert "Missing parentheses" in diagnostic.message


def test_a_nul_byte_in_a_file_no_rule_parses_is_tck000() -> None:
    (diagnostic,) = lint_source(b"x = 1\ny = 2  # a\x00b\n", "nul.py", RULES).diagnostics
    assert (diagnostic.code, diagnostic.location.row, diagnostic.location.column) == ("TCK000", 2, 11)


def test_a_valid_file_no_rule_parses_has_no_finding() -> None:
    assert lint_source(b"x = 1\nprint(x)\n", "plain.py", RULES).diagnostics == ()


# ----------------------------------------------------------------------------- form feeds in indentation

FORM_FEED_BLOCK = b"import torch\ndef f(t):\n\x0c    s = 1\n    x = torch.load(t)\n    y = 2\n"


def test_a_form_feed_before_a_blocks_first_line_does_not_shift_later_findings() -> None:
    (diagnostic,) = lint_source(FORM_FEED_BLOCK, "a.py", RULES).diagnostics
    assert (diagnostic.location.row, diagnostic.location.column) == (4, 9)
    assert diagnostic.end_location.column <= len(diagnostic.source_line) + 1
    (edit,) = diagnostic.fix.edits  # type: ignore[union-attr]
    assert (edit.location.row, edit.location.column) == (4, 9)


def test_fixing_a_block_that_starts_with_a_form_feed_changes_only_the_fixed_line() -> None:
    fixed = fix_source(FORM_FEED_BLOCK, "a.py", RULES, unsafe=True).fixed_source
    assert fixed == b"import torch\ndef f(t):\n\x0c    s = 1\n    x = torch.load(t, weights_only=True)\n    y = 2\n"


def test_fixing_keeps_a_form_feed_inside_a_block_on_a_line_no_fix_touched() -> None:
    source = b"import torch\ndef f(t):\n    s = 1\n\x0c    y = 2\n    x = torch.load(t)\n"
    fixed = fix_source(source, "a.py", RULES, unsafe=True).fixed_source
    assert fixed == source.replace(b"load(t)", b"load(t, weights_only=True)")


def test_fixing_keeps_a_lone_backslash_line_before_a_statement_no_fix_touched() -> None:
    source = b"import torch\n\\\nx = 1\ny = torch.load(f)\n"
    fixed = fix_source(source, "a.py", RULES, unsafe=True).fixed_source
    assert fixed == b"import torch\n\\\nx = 1\ny = torch.load(f, weights_only=True)\n"


def test_a_finding_on_a_line_that_starts_with_a_form_feed_points_at_its_own_text() -> None:
    source = b"import torch\ndef f(t):\n    s = 1\n\x0c    x = torch.load(t)\n"
    (diagnostic,) = lint_source(source, "a.py", RULES).diagnostics
    line = diagnostic.source_line
    assert line[diagnostic.location.column - 1 :].startswith("torch.load(t)")
    assert diagnostic.end_location.column == len(line) + 1


# ----------------------------------------------------------------------------- a fixed point


def nested_loads(depth: int) -> bytes:
    return b"import torch\nx = " + b"torch.load(" * depth + b"f" + b")" * depth + b"\n"


def test_fix_reaches_a_fixed_point_on_eleven_nested_fixable_calls() -> None:
    once = fix_source(nested_loads(11), "a.py", RULES, unsafe=True)
    assert once.fixes_applied == 11
    assert once.fixed_source is not None and once.fixed_source.count(b"weights_only=True") == 11
    assert fix_source(once.fixed_source, "a.py", RULES, unsafe=True).fixed_source is None


def test_fixes_left_when_the_pass_budget_runs_out_are_still_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "MAX_FIX_PASSES", 2)
    result = fix_source(nested_loads(4), "a.py", RULES, unsafe=True)
    assert result.fixes_applied == 2
    left = [d for d in result.diagnostics if d.code == "TCK401"]
    assert len(left) == 2 and all(d.fix is not None for d in left)


class RenamesMarker(Rule):
    """Renames `marker()` to `checked()`."""

    code = "TCK991"
    name = "renames-marker"
    message = "marker called"
    fix_safety = FixSafety.SAFE
    VALID = (Valid("checked()"),)
    INVALID = (Invalid("marker()  # TCK991", expected_replacement="checked()\n"),)
    old, new = "marker", "checked"

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == self.old:
            self.report(node, replacement=node.with_changes(func=cst.Name(self.new)))


class RenamesChecked(RenamesMarker):
    """Renames `checked()` back to `marker()`."""

    code = "TCK992"
    name = "renames-checked"
    VALID = (Valid("marker()"),)
    INVALID = (Invalid("checked()  # TCK992", expected_replacement="marker()\n"),)
    old, new = "checked", "marker"


def test_two_fixes_that_undo_each_other_stop_when_the_text_comes_back() -> None:
    result = fix_source(b"marker()\n", "a.py", [RenamesMarker, RenamesChecked])
    assert result.fixes_applied == 1 and result.fixed_source == b"checked()\n"
    assert [d.code for d in result.diagnostics] == ["TCK992"]
