"""The table of deprecated, removed and non-public APIs (``symbols.toml``) and the two rule
shapes built on it: one reports calls of a listed API, the other imports of it.

A rule class only says which ``status`` it covers; everything else comes from the table, so
adding an API is one TOML entry.
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass
from importlib import resources
from typing import ClassVar

import libcst as cst

from torchcheck.lint.nodes import dotted_name, method_call
from torchcheck.lint.rule import ImportedName, ImportTrackingRule, Rule

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

STATUSES = ("removed", "deprecated", "non-public")


@dataclass(frozen=True)
class Symbol:
    """One row of ``symbols.toml``."""

    name: str
    status: str
    replacement: str
    rename: bool = False
    tensor_method: bool = False  # also a method of tensors, gone with the function (`x.symeig()`)
    max_args: int | None = None
    since: tuple[int, int] | None = None
    deprecated: str | None = None
    removed: str | None = None
    note: str | None = None

    @property
    def module(self) -> str:
        return self.name.rpartition(".")[0]

    @property
    def attribute(self) -> str:
        return self.name.rpartition(".")[2]

    def advice(self) -> str:
        advice = f"use `{self.replacement}`"
        return f"{advice} ({self.note})" if self.note else advice

    def renames_call(self, call: cst.Call) -> bool:
        """The replacement is a drop-in for this call (same arguments, same meaning)."""
        if not self.rename or any(argument.star for argument in call.args):
            return False
        return self.max_args is None or len(call.args) <= self.max_args


def _version(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    major, minor = text.split(".")
    return int(major), int(minor)


@functools.cache
def symbols() -> dict[str, Symbol]:
    """Every row of the table, by qualified name."""
    raw = tomllib.loads(resources.files(__package__).joinpath("symbols.toml").read_text(encoding="utf-8"))
    table = {}
    for row in raw["symbol"]:
        if row["status"] not in STATUSES:
            raise ValueError(f"symbols.toml: {row['name']} has unknown status {row['status']!r}")
        table[row["name"]] = Symbol(**{**row, "since": _version(row.get("since"))})
    return table


def symbols_with_status(status: str) -> dict[str, Symbol]:
    return {name: symbol for name, symbol in symbols().items() if symbol.status == status}


class SymbolTableRule(Rule):
    """Base of the table-driven rules: the subclass names the ``status`` it reports."""

    status: ClassVar[str]
    required_text = ("torch",)  # every name in the table starts with `torch` or `functorch`

    def _entry(self, qualified: str | None) -> Symbol | None:
        symbol = symbols().get(qualified) if qualified is not None else None
        if symbol is None or symbol.status != self.status or self.context.in_compatibility_code:
            return None
        return symbol if self.context.settings.has_torch_api(symbol.since) else None


class SymbolCallRule(SymbolTableRule):
    """Reports calls of a listed API; the fix renames drop-in replacements."""

    template: ClassVar[str]  # formatted with the symbol's `name` and `advice`

    def visit_Call(self, node: cst.Call) -> None:
        symbol = self._entry(self.context.call_name(node))
        if symbol is None:
            self._report_tensor_method(node)
            return
        message = self.template.format(name=symbol.name, advice=symbol.advice())
        new_function = self.context.reference_to(symbol.replacement, node.func) if symbol.renames_call(node) else None
        if new_function is None:
            self.report(node, message)
        else:
            self.report(node, message, replacement=new_function, replace_target=node.func)


    def _report_tensor_method(self, call: cst.Call) -> None:
        """``cov.symeig(True)`` on a tensor: the method spelling of a listed function."""
        called = method_call(call)
        symbol = self._entry(f"torch.{called[1]}") if called is not None else None
        if symbol is not None and symbol.tensor_method and self.context.is_tensor(called[0]):  # type: ignore[index]
            self.report(call, self.template.format(name=f"Tensor.{called[1]}", advice=symbol.advice()))  # type: ignore[index]


class SymbolImportRule(SymbolTableRule, ImportTrackingRule):
    """Reports ``from module import name`` of a listed API once its scope is complete (a name
    also imported from somewhere else is ambiguous and left alone). The fix rewrites the
    module when every name moves unchanged to one place."""

    template: ClassVar[str]  # formatted with `names` and `advice`

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            return
        module = dotted_name(node.module)
        for alias in node.names:
            symbol = self._entry(f"{module}.{dotted_name(alias.name)}")
            local = alias.asname.name if alias.asname is not None else alias.name
            if symbol is not None and isinstance(local, cst.Name):
                self.track_import(node, local.value, symbol.name)

    def report_imports(self, imports: list[ImportedName]) -> None:
        by_statement: dict[cst.CSTNode, list[Symbol]] = {}
        for imported in imports:
            by_statement.setdefault(imported.node, []).append(symbols()[imported.qualified])
        for statement, found_symbols in by_statement.items():
            assert isinstance(statement, cst.ImportFrom)
            names = ", ".join(f"`{symbol.name}`" for symbol in found_symbols)
            advice = "; ".join(symbol.advice() for symbol in found_symbols)
            message = self.template.format(names=names, advice=advice)
            new_module = _moved_module(statement, found_symbols)
            if new_module is None:
                self.report(statement, message)
            else:
                self.report(statement, message, replacement=statement.with_changes(module=new_module))


def _moved_module(statement: cst.ImportFrom, found: list[Symbol]) -> cst.Attribute | cst.Name | None:
    """The new module when every name the statement imports moved, unrenamed, to one module."""
    imported = statement.names
    assert not isinstance(imported, cst.ImportStar)
    moved = [symbol for symbol in found if symbol.rename and symbol.replacement.rpartition(".")[2] == symbol.attribute]
    targets = {symbol.replacement.rpartition(".")[0] for symbol in moved}
    if len(moved) != len(imported) or len(targets) != 1:
        return None
    new_module = cst.parse_expression(targets.pop())
    assert isinstance(new_module, (cst.Attribute, cst.Name))
    return new_module
