"""torchcheck's positions agree with libcst's PositionProvider on every node."""

from __future__ import annotations

import ast
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from torchcheck.lint.positions import Positions

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted([*ROOT.glob("fixtures/lint/*.py"), *ROOT.glob("src/torchcheck/lint/*.py")])
TRICKY = {
    "crlf_and_no_trailing_newline": b"import torch\r\nx = torch.ones(2)\r\nif x:\r\n    y = (x\r\n         + 1)",
    "decorators_and_comments": b"@torch.no_grad()\n# comment\n@other\ndef f(a, *, b=1):  # trailing\n    return [a for a in b]\n",
    "unicode_columns": "s = 'ünïcödé'; t = torch.tensor([1])\n".encode(),
    "old_mac_line_ends": b"import torch\rx = torch.ones(2)\rif x:\r    y = (x\r         + 1)\r",
    "empty": b"",
}


def _assert_same_as_libcst(source: bytes) -> None:
    module = cst.parse_module(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    ours = Positions(module)
    mismatched = [type(node).__name__ for node, where in expected.items() if ours[node] != where]
    assert not mismatched


def _top_level_statements(module: cst.Module) -> dict[cst.CSTNode, cst.CSTNode]:
    """Each node of ``module`` mapped to the statement of the module's body that holds it."""
    holder: dict[cst.CSTNode, cst.CSTNode] = {}

    class Collect(cst.CSTVisitor):
        def __init__(self, statement: cst.CSTNode) -> None:
            self.statement = statement

        def on_visit(self, node: cst.CSTNode) -> bool:
            holder[node] = self.statement
            return True

    for statement in module.body:
        statement.visit(Collect(statement))
    return holder


def _assert_located_like_libcst(source: bytes) -> None:
    """Positions found through each node's top-level statement, against the file's own text."""
    module = cst.parse_module(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    ours = Positions(module, source.decode("utf-8"))
    holders = _top_level_statements(module)
    mismatched = [type(node).__name__ for node, statement in holders.items() if ours.locate(node, statement) != expected[node]]
    assert not mismatched


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_positions_match_position_provider_on_every_node_of_real_files(path: Path) -> None:
    _assert_same_as_libcst(path.read_bytes())


@pytest.mark.parametrize("source", TRICKY.values(), ids=TRICKY.keys())
def test_positions_match_position_provider_on_layout_edge_cases(source: bytes) -> None:
    _assert_same_as_libcst(source)


@pytest.mark.parametrize("path", FILES[::4], ids=lambda path: path.name)
def test_positions_located_through_a_top_level_statement_match_position_provider(path: Path) -> None:
    _assert_located_like_libcst(path.read_bytes())


@pytest.mark.parametrize("source", [source for source in TRICKY.values() if source], ids=[k for k, v in TRICKY.items() if v])
def test_positions_located_through_a_top_level_statement_hold_on_layout_edge_cases(source: bytes) -> None:
    _assert_located_like_libcst(source)


def test_a_statement_whose_code_repeats_in_the_file_is_located_by_the_whole_module() -> None:
    source = "import torch\nx = torch.ones(2)\ndef f():\n    pass\nx = torch.ones(2)\n"
    module = cst.parse_module(source)
    positions = Positions(module, source)
    second = module.body[3]
    assert positions.locate(second, second).start.line == 5
    assert positions.locate(module.body[0], module.body[0]).start.line == 1


def test_a_wrong_statement_hint_costs_time_but_never_a_wrong_position() -> None:
    source = "import torch\nclass A:\n    def f(self):\n        return torch.ones(2)\n"
    module = cst.parse_module(source)
    positions = Positions(module, source)
    method = module.body[1].body.body[0]
    assert positions.locate(method, module.body[0]).start.line == 3
    assert positions.locate(method, method).start.line == 3  # not a module-level statement


def test_lines_after_a_lone_backslash_line_are_the_files_own_lines() -> None:
    # libcst's codegen drops a line holding only a backslash continuation; Python does not.
    source = "import torch\n\\\nx = 1\nclass A:\n    a = 1\n    \\\n\\\n    def f(self):\n        return x\n"
    module = cst.parse_module(source)
    positions = Positions(module, source)
    ours = [positions[node].start.line for node in (module.body[1], module.body[2], module.body[2].body.body[1])]
    python = ast.parse(source).body
    assert ours == [python[1].lineno, python[2].lineno, python[2].body[1].lineno] == [3, 4, 8]
