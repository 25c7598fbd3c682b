"""What ``from module import *`` binds when the module is a file of the project.

Research code often takes ``torch``, ``nn`` and its own layers from ``from utils import *``.
Read alone, such a file names no torch at all. Before a file is linted, each star import of a
project module is read (with Python's own parser, from the module's text, following the
module's own star imports) and turned into the names it binds and where each comes from,
so the file is analysed as if it spelled those imports.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

# `from pkg.mod import *`, `from . import *`, `from ..layers import *`: module level only
# (Python allows no star import in a function), possibly inside a `try:` or an `if`.
_STAR_IMPORT = re.compile(rb"^[ \t]*from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import[ \t]*\*", re.M)
_MAX_DEPTH = 6  # star imports of star imports, followed this deep
# A top-level line that is more than an import: code that may use what a star import binds.
# A package's `__init__.py` of imports alone needs none of it (the project index follows
# its star imports when another file asks for a name through it).
_CODE_LINE = re.compile(rb"^(?!from\s|import\s|__all__|try:|except|finally:|else:)[A-Za-z_@]", re.M)

Locate = Callable[[str, str, int], "str | None"]  # (importing file, module, level) -> file
Read = Callable[[str], "bytes | None"]


@dataclass(frozen=True)
class StarImport:
    """The names one ``from <module> import *`` of a project module binds. Each comes with
    its qualified name when the module took it from outside the project (``nn`` ->
    ``torch.nn``), or ``""`` for a name of the project (a class the module defines or
    re-exports), which the project index finds through the module."""

    module: str  # as the importing file spells it ("" for `from . import *`)
    level: int  # leading dots
    names: tuple[tuple[str, str], ...]

    def qualified_names(self) -> Iterator[tuple[str, str | None]]:
        """Each name with its qualified name as an explicit import of it would give it, or
        None when only the project index can say what it is (a relative import's)."""
        for name, origin in self.names:
            yield name, origin or (f"{self.module}.{name}" if self.level == 0 and self.module else None)

    def symbols(self) -> Iterator[tuple[str, str, str, int]]:
        """Each name with the module, name and level of the import the index follows."""
        for name, origin in self.names:
            yield (name, origin, "", 0) if origin else (name, self.module, name, self.level)


class StarImports:
    """Reads the project modules that files star-import; each module is read once a run."""

    def __init__(self, locate: Locate, read: Read) -> None:
        self._locate = locate
        self._read = read
        self._provided: dict[str, dict[str, str]] = {}

    def of(self, importer: str, source: bytes) -> tuple[StarImport, ...]:
        """The star imports of project modules in ``source`` (the file ``importer``)."""
        if b"*" not in source or _CODE_LINE.search(source) is None:
            return ()
        found = []
        for match in _STAR_IMPORT.finditer(source):
            level, module = len(match[1]), match[2].decode("ascii", "replace")
            target = self._locate(importer, module, level)
            if target is not None and target != importer:
                names = self._names_of(target, frozenset({importer}))
                found.append(StarImport(module, level, tuple(sorted(names.items()))))
        return tuple(found)

    def _names_of(self, file: str, following: frozenset[str]) -> dict[str, str]:
        """The names ``from <file> import *`` binds, with their origins (see :class:`StarImport`)."""
        known = self._provided.get(file)
        if known is not None:
            return known
        if file in following or len(following) > _MAX_DEPTH:
            return {}
        source = self._read(file)
        try:
            tree = ast.parse(source) if source is not None else None
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            tree = None
        names = self._public(tree, self._bound_names(file, tree, following | {file})) if tree is not None else {}
        self._provided[file] = names
        return names

    def _bound_names(self, file: str, tree: ast.Module, following: frozenset[str]) -> dict[str, str]:
        names: dict[str, str] = {}
        for statement in _module_level(tree.body):
            if isinstance(statement, ast.Import):
                for alias in statement.names:
                    local = alias.asname or alias.name.split(".", 1)[0]
                    names[local] = self._outside(file, alias.name, alias.name if alias.asname else local)
            elif isinstance(statement, ast.ImportFrom):
                names.update(self._imported_from(file, statement, following))
            else:
                names.update(dict.fromkeys(_defined(statement), ""))
        return names

    def _imported_from(self, file: str, statement: ast.ImportFrom, following: frozenset[str]) -> dict[str, str]:
        module = statement.module or ""
        if statement.names[0].name == "*":
            target = self._locate(file, module, statement.level)
            return self._names_of(target, following) if target is not None else {}
        if statement.level > 0:
            return {alias.asname or alias.name: "" for alias in statement.names}
        return {alias.asname or alias.name: self._outside(file, module, f"{module}.{alias.name}") for alias in statement.names}

    def _outside(self, file: str, module: str, qualified: str) -> str:
        """``qualified`` for a module outside the project, else "" (the index follows it)."""
        head = module.split(".", 1)[0]
        return "" if self._locate(file, module, 0) is not None or self._locate(file, head, 0) is not None else qualified

    @staticmethod
    def _public(tree: ast.Module, names: dict[str, str]) -> dict[str, str]:
        listed = _literal_all(tree)
        if listed is not None:
            return {name: names.get(name, "") for name in listed}
        return {name: origin for name, origin in names.items() if not name.startswith("_")}


def _module_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements that run at module level, in order: also those in a top-level ``if``,
    ``try`` or ``with`` (``try: from apex import amp except ImportError: ...``)."""
    for statement in body:
        if isinstance(statement, ast.If):
            yield from _module_level(statement.body)
            yield from _module_level(statement.orelse)
        elif isinstance(statement, ast.Try):
            for block in (statement.body, *(handler.body for handler in statement.handlers), statement.orelse, statement.finalbody):
                yield from _module_level(block)
        elif isinstance(statement, ast.With):
            yield from _module_level(statement.body)
        else:
            yield statement


def _defined(statement: ast.stmt) -> Iterator[str]:
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield statement.name
    elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        for target in targets:
            for node in ast.walk(target):
                if isinstance(node, ast.Name):
                    yield node.id


def _literal_all(tree: ast.Module) -> list[str] | None:
    """The module's ``__all__`` when it is a literal list or tuple of strings."""
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in statement.targets):
            value = statement.value
            if isinstance(value, (ast.List, ast.Tuple)) and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts):
                return [e.value for e in value.elts]  # type: ignore[attr-defined]
            return None
    return None
