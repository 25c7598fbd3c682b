"""Helpers shared by the rule tests: run one rule over a snippet and read inline expectations."""

from __future__ import annotations

import re
import textwrap

from torchcheck.lint.diagnostic import Diagnostic
from torchcheck.lint.engine import FileResult, fix_source, lint_source
from torchcheck.lint.project import PROJECT, Condition, IndexedFile, ProjectIndex
from torchcheck.lint.registry import rules_by_code
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
    return sorted((d.location.row, d.code) for d in as_one_file_project(result, "example.py"))


def as_one_file_project(result: FileResult, filename: str) -> list[Diagnostic]:
    """The findings of a file linted as a project of its own: findings that wait only for
    facts of the whole project (``project:...``) or of the file are decided as the project
    index would; those about imported files stay undecided, as when the file is linted alone."""
    index = ProjectIndex({filename: IndexedFile(filename, result.exports)}, lambda importer, module, level: None)
    decided = []
    for finding in result.deferred:
        if result.exports is not None and all(_answerable_alone(condition) for condition in finding.conditions):
            diagnostic = index.resolve(filename, finding)
            if diagnostic is not None:
                decided.append(diagnostic)
    return [*result.diagnostics, *decided]


def _answerable_alone(condition: Condition) -> bool:
    return condition.symbol.is_local or condition.fact.startswith(f"{PROJECT}:")


def fixed(source: str, rules: list[type[Rule]]) -> str:
    result = fix_source(textwrap.dedent(source).encode(), "example.py", rules, unsafe=True)
    return (result.fixed_source or textwrap.dedent(source).encode()).decode()


def codes_reported(source: str, code: str) -> list[str]:
    """The codes found when ``source`` is linted, as a project of its own, with rule ``code``."""
    result = lint_source(source.encode(), "example.py", rules_by_code([code]))
    return [diagnostic.code for diagnostic in as_one_file_project(result, "example.py")]


def run_snippet(source: str) -> dict[str, object]:
    """Run a snippet exactly as it was linted; its module namespace."""
    namespace: dict[str, object] = {}
    exec(compile(source, "example.py", "exec"), namespace)  # noqa: S102 - test snippets
    return namespace
