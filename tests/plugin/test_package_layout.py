"""The plugin's house: its own package, imports one way (plugin -> checks -> torch).

Read from the source with ``ast``, never imported, so a cycle that only bites at run time
(an import inside a function) is caught too. Every import counts: module level, inside
functions, under ``if TYPE_CHECKING``. Importing ``torchcheck.plugin.hooks`` runs the
package's ``__init__`` first, but that is Python's doing, not an edge of the graph: an
edge is an ``import`` statement.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

import torchcheck

PACKAGE = Path(torchcheck.__file__).parent
PLUGIN = "torchcheck.plugin"
CHECKS = "torchcheck.checks"
# The top-level modules the plugin was spread over before it had a package of its own.
OLD_TOP_LEVEL_MODULES = (
    "plugin.py",
    "_plugin_hooks.py",
    "_plugin_support.py",
    "_distributed_plugin.py",
    "_distributed_runner.py",
    "_distributed_support.py",
    "_golden_plugin.py",
    "_model_items.py",
    "_model_config.py",
    "_localize_setting.py",
)


def module_files(package: Path) -> dict[str, Path]:
    """Dotted name -> file, for every module of the package rooted at ``package``."""
    modules = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def imports_of(name: str, path: Path, known: Mapping[str, Path]) -> Iterator[tuple[str, int]]:
    """``(imported module, line)`` for every import statement anywhere in the file.
    ``from a import b`` imports ``a.b`` when that is a module, else ``a``."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, name, is_package)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                yield (submodule if submodule in known else base), node.lineno


def _absolute(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    parts = importer.split(".")
    anchor = parts if is_package else parts[:-1]
    anchor = anchor[: len(anchor) - (node.level - 1)]
    return ".".join([*anchor, node.module] if node.module else anchor)


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def import_graph(known: Mapping[str, Path], package: str) -> dict[str, set[str]]:
    """Which modules of ``package`` each of its modules imports."""
    return {
        name: {imported for imported, _ in imports_of(name, path, known) if within(imported, package)}
        for name, path in known.items()
        if within(name, package)
    }


def find_cycle(graph: Mapping[str, set[str]]) -> list[str] | None:
    """One import cycle as ``[a, b, ..., a]``, or ``None``."""
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> list[str] | None:
        if module in path:
            return path[path.index(module) :] + [module]
        if module in done:
            return None
        for imported in sorted(graph.get(module, ())):
            cycle = visit(imported, [*path, module])
            if cycle is not None:
                return cycle
        done.add(module)
        return None

    for module in sorted(graph):
        cycle = visit(module, [])
        if cycle is not None:
            return cycle
    return None


# --- the project's layout -------------------------------------------------------------


def test_no_checks_module_imports_the_plugin() -> None:
    known = module_files(PACKAGE)
    offenders = [
        f"{known[name].relative_to(PACKAGE.parent)}:{line} imports {imported}"
        for name in known
        if within(name, CHECKS)
        for imported, line in imports_of(name, known[name], known)
        if within(imported, PLUGIN)
    ]
    assert not offenders, "the checks must not import the plugin (plugin -> checks -> torch):\n" + "\n".join(
        dict.fromkeys(offenders)
    )


def test_the_checks_own_what_they_import_from_torchcheck() -> None:
    """Besides their own package, the checks use only ``torchcheck`` itself (its public
    names): what they share with the plugin (the rank runner, the model table, the
    localize level) lives in ``torchcheck.checks``, where the plugin can reach it."""
    known = module_files(PACKAGE)
    offenders = [
        f"{known[name].relative_to(PACKAGE.parent)}:{line} imports {imported}"
        for name in known
        if within(name, CHECKS)
        for imported, line in imports_of(name, known[name], known)
        if within(imported, "torchcheck") and imported != "torchcheck" and not within(imported, CHECKS)
    ]
    assert not offenders, "move what these use into torchcheck/checks/:\n" + "\n".join(dict.fromkeys(offenders))


def test_the_plugin_modules_import_each_other_without_a_cycle() -> None:
    graph = import_graph(module_files(PACKAGE), PLUGIN)
    assert len(graph) > 1, f"expected the plugin to be a package of several modules, found {sorted(graph)}"
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle in the plugin package: " + " -> ".join(cycle or [])


def test_the_old_top_level_plugin_modules_are_gone() -> None:
    back = [name for name in OLD_TOP_LEVEL_MODULES if (PACKAGE / name).exists()]
    assert not back, f"these belong in torchcheck/plugin/ or torchcheck/checks/ now: {back}"


# --- the reader itself, on a made-up package -----------------------------------------


def _package(root: Path, files: Mapping[str, str]) -> dict[str, Path]:
    for relative, source in files.items():
        path = root / "pkg" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
    return module_files(root / "pkg")


def test_a_cycle_through_an_import_inside_a_function_is_found(tmp_path: Path) -> None:
    known = _package(
        tmp_path,
        {
            "__init__.py": "",
            "plugin/__init__.py": "def configure():\n    from pkg.plugin import hooks\n",
            "plugin/hooks.py": "from pkg.plugin import TITLE\n",
            "plugin/support.py": "",
        },
    )
    assert find_cycle(import_graph(known, "pkg.plugin")) == ["pkg.plugin", "pkg.plugin.hooks", "pkg.plugin"]


def test_relative_and_type_checking_imports_are_read(tmp_path: Path) -> None:
    known = _package(
        tmp_path,
        {
            "__init__.py": "",
            "plugin/__init__.py": "",
            "plugin/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import X\n",
            "plugin/b.py": "from . import a\n",
            "checks/__init__.py": "",
            "checks/c.py": "from ..plugin import b\n",
        },
    )
    graph = import_graph(known, "pkg.plugin")
    assert graph["pkg.plugin.a"] == {"pkg.plugin.b"}
    assert find_cycle(graph) == ["pkg.plugin.a", "pkg.plugin.b", "pkg.plugin.a"]
    assert [imported for imported, _ in imports_of("pkg.checks.c", known["pkg.checks.c"], known)] == ["pkg.plugin.b"]


def test_a_layout_without_cycles_passes(tmp_path: Path) -> None:
    known = _package(
        tmp_path,
        {
            "__init__.py": "",
            "plugin/__init__.py": "from pkg.plugin.support import TITLE\ndef configure():\n    from pkg.plugin import hooks\n",
            "plugin/hooks.py": "from pkg.plugin.support import TITLE\n",
            "plugin/support.py": "TITLE = 'x'\n",
        },
    )
    assert find_cycle(import_graph(known, "pkg.plugin")) is None
