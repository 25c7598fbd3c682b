"""``references.runs_whenever``: whether one statement runs every time another does."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from torchcheck.lint.binder import Binder
from torchcheck.lint.references import runs_whenever


def _statements(source: str) -> tuple[Binder, dict[str, cst.CSTNode]]:
    module = cst.parse_module(textwrap.dedent(source))
    binder = Binder(module)
    marked: dict[str, cst.CSTNode] = {}

    class Marks(cst.CSTVisitor):
        def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
            statement = node.body[0]
            if isinstance(statement, cst.Expr) and isinstance(statement.value, cst.Call) and isinstance(statement.value.func, cst.Name):
                marked[statement.value.func.value] = statement

    module.visit(Marks())
    return binder, marked


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("first()\nsecond()\n", True),
        ("first()\nif flag:\n    second()\n", False),
        ("if flag:\n    first()\nelse:\n    second()\n", False),
        ("if flag:\n    first()\n    second()\n", True),
        ("if flag:\n    first()\nsecond()\n", True),
        ("try:\n    first()\nexcept ValueError:\n    second()\n", False),
        ("first()\nfor x in xs:\n    second()\n", False),
        ("second()\nfirst()\n", False),
    ],
)
def test_runs_whenever(source: str, expected: bool) -> None:
    binder, marked = _statements(source)
    assert runs_whenever(binder, marked["first"], marked["second"]) is expected
