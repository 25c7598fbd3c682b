"""Engine guarantees that no single rule can show: broken fixes are never written, walks are shared."""

from __future__ import annotations

import libcst as cst

from torchcheck.lint.engine import fix_source, lint_source
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid


class BreaksTheCode(Rule):
    """A deliberately bad fix: replaces every `print(...)` call with invalid syntax."""

    code = "TCK990"
    name = "breaks-the-code"
    message = "print call"
    fix_title = "Break it"
    fix_safety = FixSafety.SAFE
    VALID = (Valid("x = 1"),)
    INVALID = (Invalid("print(1)  # TCK990", expected_replacement="never"),)

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "print":
            broken = cst.Name("placeholder")
            object.__setattr__(broken, "value", "not valid python")  # bypass libcst's validation
            self.report(node, replacement=broken)


class CountsCalls(Rule):
    """Reports every call to `count_me`."""

    code = "TCK991"
    name = "counts-calls"
    message = "count_me called"
    required_text = ("count_me",)
    VALID = (Valid("x = 1"), Valid("y = 2"))
    INVALID = (Invalid("count_me()  # TCK991"),)

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "count_me":
            self.report(node)


def test_fix_that_would_not_parse_is_never_applied() -> None:
    source = b"print(1)\n"
    result = fix_source(source, "a.py", [BreaksTheCode])
    assert result.fixed_source is None and result.fixes_applied == 0
    assert [d.code for d in result.diagnostics] == ["TCK990"]


def test_files_without_a_rules_required_text_are_not_parsed() -> None:
    # A syntax error is only reported if the file is parsed at all.
    assert lint_source(b"def broken(:\n", "a.py", [CountsCalls]).diagnostics == ()
    assert [d.code for d in lint_source(b"count_me(\n", "a.py", [CountsCalls]).diagnostics] == ["TCK000"]


def test_diagnostics_are_sorted_by_position() -> None:
    source = b"count_me()\nx = 1\ncount_me(); count_me()\n"
    result = lint_source(source, "a.py", [CountsCalls])
    assert [(d.location.row, d.location.column) for d in result.diagnostics] == [(1, 1), (3, 1), (3, 13)]
