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


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_positions_match_position_provider_on_every_node_of_real_files(path: Path) -> None:
    _assert_same_as_libcst(path.read_bytes())


@pytest.mark.parametrize("source", TRICKY.values(), ids=TRICKY.keys())
def test_positions_match_position_provider_on_layout_edge_cases(source: bytes) -> None:
    _assert_same_as_libcst(source)


def test_lines_after_a_lone_backslash_line_are_the_files_own_lines() -> None:
    # libcst's codegen drops a line holding only a backslash continuation; Python does not.
    source = "import torch\n\\\nx = 1\nclass A:\n    a = 1\n    \\\n\\\n    def f(self):\n        return x\n"
    module = cst.parse_module(source)
    positions = Positions(module, source)
    ours = [positions[node].start.line for node in (module.body[1], module.body[2], module.body[2].body.body[1])]
    python = ast.parse(source).body
    assert ours == [python[1].lineno, python[2].lineno, python[2].body[1].lineno] == [3, 4, 8]
