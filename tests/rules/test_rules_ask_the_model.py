"""Rules ask the semantic model (lint/); they keep no scopes, walkers or parent maps of
their own.

A rule module that walks a subtree itself, keeps a stack of scopes, or builds parent links
duplicates what the binder (lint/binder.py), the node helpers (lint/nodes.py) and the
context answer for every rule. The rules listed in ``NOT_YET_ON_THE_MODEL`` still do; the
list may only shrink: a rule that leaves it must be removed from it, and no rule may join.
"""

from __future__ import annotations

import re
from pathlib import Path

import torchcheck.rules

RULES = Path(torchcheck.rules.__file__).parent

# What a private scope table, walker or parent map looks like in a rule module.
OWN_MACHINERY = {
    "a stack of scopes": re.compile(r"self\._scopes\b|class _?Scope(State)?\b"),
    "a scope-keeping base class": re.compile(r"\bScopedRule\b"),
    "a walker": re.compile(r"from torchcheck\.lint\.walker import|\bCSTVisitor\b|\bCSTTransformer\b|\.visit\(|\bast\.walk\("),
    "a parent map": re.compile(r"\b_?parents\b\s*[:=]"),
}

# Each with what it keeps; the binder answers all of it.
NOT_YET_ON_THE_MODEL = {
}


def own_machinery(source: str) -> set[str]:
    return {what for what, pattern in OWN_MACHINERY.items() if pattern.search(source)}


def machinery_by_rule() -> dict[str, set[str]]:
    found = {}
    for path in sorted(RULES.rglob("*.py")):
        kept = own_machinery(path.read_text(encoding="utf-8"))
        if kept:
            found[path.relative_to(RULES).as_posix()] = kept
    return found


def test_no_rule_keeps_scopes_walkers_or_parent_maps_beyond_the_shrinking_list() -> None:
    assert machinery_by_rule() == NOT_YET_ON_THE_MODEL


def test_the_patterns_recognise_each_kind_of_private_machinery() -> None:
    assert own_machinery("self._scopes.append({})") == {"a stack of scopes"}
    assert own_machinery("from torchcheck.lint.walker import children") == {"a walker"}
    assert own_machinery("module.visit(Collector())") == {"a walker"}
    assert own_machinery("parents: dict[cst.CSTNode, cst.CSTNode] = {}") == {"a parent map"}
    assert own_machinery("class Rule(ScopedRule):") == {"a scope-keeping base class"}
    assert own_machinery("for node in subtree(expression):") == set()
