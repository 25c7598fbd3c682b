"""The migration table in docs/migrating-from-torchfix.md matches the rules' declared TorchFix codes."""

from __future__ import annotations

import re
from pathlib import Path

from torchcheck.lint.registry import all_rules

DOC = Path(__file__).resolve().parents[2] / "docs" / "migrating-from-torchfix.md"
_ROW = re.compile(r"^\| (TOR\d{3}) \|[^|]*\| (?:\[(TCK\d{3})\]\([^)]*\) ([a-z0-9-]+)|not ported[^|]*) \|\s*([a-z-]*)\s*\|$")


def _table() -> dict[str, tuple[str | None, str | None, str]]:
    rows = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        match = _ROW.match(line)
        if match:
            rows[match[1]] = (match[2], match[3], match[4])
    return rows


def test_migration_table_names_the_rule_that_declares_each_torchfix_code() -> None:
    declared = {
        torchfix: (rule.code, rule.name, "on" if rule.default_enabled else "opt-in")
        for rule in all_rules()
        for torchfix in rule.torchfix_codes
    }
    documented = {code: row for code, row in _table().items() if row[0] is not None}
    assert documented == declared


def test_migration_table_covers_every_torchfix_code() -> None:
    from tests.parity.torchfix import NOT_PORTED

    table = _table()
    assert set(NOT_PORTED) <= set(table)
    assert all(table[code][0] is None for code in NOT_PORTED)
    assert len(table) == 16  # TOR001-004, TOR101-107, TOR201-203, TOR401, TOR901
