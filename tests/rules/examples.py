"""Helpers shared by the rule tests: run one rule over a snippet and read inline expectations."""

from __future__ import annotations

import re
import textwrap

from torchcheck.lint.engine import fix_source, lint_source
from torchcheck.lint.rule import Rule

_EXPECTATION = re.compile(r"#\s*((?:TCK\d{3}[ ,]*)+)\s*$")


def expected_findings(source: str) -> list[tuple[int, str]]:
    """``(line, code)`` for every line ending in a ``# TCKnnn`` comment."""
    found = []
    for number, line in enumerate(source.splitlines(), start=1):
        match = _EXPECTATION.search(line)
        if match:
            found.extend((number, code) for code in re.findall(r"TCK\d{3}", match.group(1)))
    return sorted(found)


def findings(source: str, rules: list[type[Rule]]) -> list[tuple[int, str]]:
    result = lint_source(textwrap.dedent(source).encode(), "example.py", rules)
    return sorted((d.location.row, d.code) for d in result.diagnostics)


def fixed(source: str, rules: list[type[Rule]]) -> str:
    result = fix_source(textwrap.dedent(source).encode(), "example.py", rules, unsafe=True)
    return (result.fixed_source or textwrap.dedent(source).encode()).decode()
