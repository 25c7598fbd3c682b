"""Every rule's VALID and INVALID examples are its tests; every fix is checked before/after."""

from __future__ import annotations

import textwrap

import pytest

from tests.rules.examples import expected_findings, findings, fixed
from torchcheck.lint.registry import all_rules
from torchcheck.lint.rule import Rule

VALID = [
    pytest.param(rule, example.code, id=f"{rule.code}-valid-{index}")
    for rule in all_rules()
    for index, example in enumerate(rule.VALID)
]
INVALID = [
    pytest.param(rule, example, id=f"{rule.code}-invalid-{index}")
    for rule in all_rules()
    for index, example in enumerate(rule.INVALID)
]


@pytest.mark.parametrize(("rule", "code"), VALID)
def test_rule_stays_silent_on_valid_example(rule: type[Rule], code: str) -> None:
    assert findings(code, [rule]) == []


@pytest.mark.parametrize(("rule", "example"), INVALID)
def test_rule_reports_invalid_example_at_marked_lines(rule: type[Rule], example) -> None:
    expected = expected_findings(textwrap.dedent(example.code))
    assert expected, "an INVALID example must mark where it is reported with a # TCKnnn comment"
    assert all(code == rule.code for _, code in expected)
    assert findings(example.code, [rule]) == expected


@pytest.mark.parametrize(("rule", "example"), INVALID)
def test_rule_fix_produces_expected_code_and_is_idempotent(rule: type[Rule], example) -> None:
    once = fixed(example.code, [rule])
    if example.expected_replacement is None:
        assert once == textwrap.dedent(example.code), "a finding without a declared replacement must not be fixed"
        return
    assert once == textwrap.dedent(example.expected_replacement)
    assert fixed(once, [rule]) == once


@pytest.mark.parametrize("rule", all_rules(), ids=lambda rule: rule.code)
def test_rule_has_examples_both_ways(rule: type[Rule]) -> None:
    assert len(rule.VALID) >= 2 and len(rule.INVALID) >= 1


@pytest.mark.parametrize("rule", all_rules(), ids=lambda rule: rule.code)
def test_rule_declares_fix_safety_exactly_when_examples_prove_a_fix(rule: type[Rule]) -> None:
    from torchcheck.lint.rule import FixSafety

    assert rule.has_fix() == (rule.fix_safety is not FixSafety.NONE)
    assert (rule.fix_title is not None) == rule.has_fix()
