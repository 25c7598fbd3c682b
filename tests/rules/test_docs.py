"""Rule documentation: ruff's headings in every rule, generated pages in rules/ are current."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchcheck.lint.docs import REQUIRED_HEADINGS, expected_pages
from torchcheck.lint.registry import all_rules
from torchcheck.lint.rule import documentation

PAGES = Path(__file__).resolve().parents[2] / "rules"


@pytest.mark.parametrize("rule", all_rules(), ids=lambda rule: rule.code)
def test_rule_doc_has_every_heading_in_order(rule) -> None:
    doc = documentation(rule)
    positions = [doc.find(heading) for heading in REQUIRED_HEADINGS]
    assert -1 not in positions, f"{rule.code} doc lacks {REQUIRED_HEADINGS[positions.index(-1)]!r}"
    assert positions == sorted(positions)
    assert doc.split("## What it does", 1)[1].strip().startswith("Checks for")


@pytest.mark.parametrize(("name", "content"), sorted(expected_pages().items()))
def test_generated_rule_page_is_current(name: str, content: str) -> None:
    page = PAGES / name
    assert page.exists() and page.read_text(encoding="utf-8") == content, (
        f"rules/{name} is stale: run python -m torchcheck.lint.docs"
    )
