"""The rule catalogue (rule_table.py) describes exactly the rule classes."""

from __future__ import annotations

from torchcheck.lint.catalogue import TABLE_PATH, RuleInfo, render_table, rule_infos
from torchcheck.lint.registry import all_rules


def test_rule_table_is_current() -> None:
    assert TABLE_PATH.read_text(encoding="utf-8") == render_table(all_rules()), (
        "src/torchcheck/lint/rule_table.py is stale: run python -m torchcheck.lint.catalogue"
    )


def test_catalogue_has_one_entry_per_rule_class_with_the_same_metadata() -> None:
    assert rule_infos() == tuple(RuleInfo.of(rule) for rule in all_rules())
