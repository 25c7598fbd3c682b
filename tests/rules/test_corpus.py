"""The fixtures/lint corpus: each file is linted with the default rules and its own; inline comments are the truth."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.rules.examples import as_one_file_project, expected_findings
from torchcheck.lint.engine import lint_source
from torchcheck.lint.registry import all_rules

CORPUS = Path(__file__).resolve().parents[2] / "fixtures" / "lint"
FILES = sorted(CORPUS.glob("*.py"))


def _rules_for(path: Path) -> list:
    """Every rule on by default, plus the file's own rule (which may be opt-in)."""
    own = path.name.split("_", 1)[0]
    return [rule for rule in all_rules() if rule.default_enabled or rule.code == own]


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.stem)
def test_corpus_file_reports_exactly_the_marked_lines(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    result = lint_source(source.encode(), path.name, _rules_for(path))
    assert sorted((d.location.row, d.code) for d in as_one_file_project(result, path.name)) == expected_findings(source)


@pytest.mark.parametrize("rule", all_rules(), ids=lambda rule: rule.code)
def test_every_rule_has_a_corpus_file_that_exercises_it(rule) -> None:
    matching = [path for path in FILES if path.name.startswith(f"{rule.code}_")]
    assert matching, f"add fixtures/lint/{rule.code}_{rule.name.replace('-', '_')}.py"
    assert any(code == rule.code for _, code in expected_findings(matching[0].read_text(encoding="utf-8")))
