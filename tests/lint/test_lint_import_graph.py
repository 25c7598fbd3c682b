"""The semantic model's package imports in one direction: no module of ``torchcheck.lint``
imports, directly or through others, a module that imports it back.

Every import counts: at module level, inside functions, and under ``TYPE_CHECKING`` (a
type-only cycle is still two modules that cannot be read one after the other).
"""

from __future__ import annotations

import ast
from pathlib import Path

import torchcheck.lint

LINT_PACKAGE = Path(torchcheck.lint.__file__).parent


def _module_names(package: Path, prefix: str) -> dict[str, Path]:
    names = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package).with_suffix("").parts
        name = ".".join((prefix, *parts)).removesuffix(".__init__")
        names[name] = path
    return names


def _imports_of(path: Path, known: set[str]) -> set[str]:
    imported = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                imported.add(submodule if submodule in known else node.module)
        elif isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
    return imported & known


def import_graph(package: Path, prefix: str) -> dict[str, set[str]]:
    modules = _module_names(package, prefix)
    known = set(modules)
    return {name: _imports_of(path, known) - {name} for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for imported in sorted(graph[module]):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def test_the_lint_package_has_no_import_cycle() -> None:
    assert cycles(import_graph(LINT_PACKAGE, "torchcheck.lint")) == []


def test_the_cycle_finder_finds_a_cycle_through_three_modules() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_the_semantic_model_does_not_import_the_rules_or_the_engine() -> None:
    graph = import_graph(LINT_PACKAGE, "torchcheck.lint")
    model = ("kinds", "nodes", "binder", "idioms", "effects", "summaries", "flow", "context", "exports", "project")
    for name in model:
        module = f"torchcheck.lint.{name}"
        if module in graph:
            assert not {m for m in graph[module] if m.endswith((".engine", ".api", ".rule", ".registry"))}, module
