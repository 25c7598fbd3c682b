"""torchcheck's positions agree with libcst's PositionProvider on every node."""

from __future__ import annotations

import ast
import random
import textwrap
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from torchcheck.lint.positions import Positions

ROOT = Path(__file__).resolve().parents[2]
CORPUS = sorted(ROOT.glob("fixtures/lint/*.py"))
# Comparing with PositionProvider costs time in proportion to the code (12 s of CPU for the
# whole corpus and the linter's sources), so real files are sampled: the smallest set of files
# that between them hold every libcst node type found in the corpus and the linter's sources,
# less those in RARE_NODE_KINDS below (a greedy cover of files under 25 kB), plus a seeded
# random sample of the corpus that moves as the corpus grows.
NODE_KIND_COVER = (
    "fixtures/lint/TCK904_deprecated_api_import.py",
    "fixtures/lint/TCK208_checkpoint_saved_on_every_rank.py",
    "fixtures/lint/TCK310_scaler_update_skipped.py",
    "src/torchcheck/lint/settings.py",
    "src/torchcheck/lint/noqa.py",
    "src/torchcheck/lint/writing.py",
)
FILES = sorted({*(ROOT / name for name in NODE_KIND_COVER), *random.Random(21).sample(CORPUS, 6)})
# The node types that only the largest of the linter's modules hold (unary plus, `|=`, `:=`,
# `global`, ...), and the rest of Python's syntax, in one small module.
RARE_NODE_KINDS = textwrap.dedent(
    '''\
    import asyncio, os
    from typing import Any

    g = 0
    flags = 0b1010


    def operators(a: int, b: int = 2, *args: Any, c: int = 3, **kwargs: Any) -> int:
        global g
        g = +a - -b * ~c // 2 ** 3 % 5 @ 1 if False else a
        g |= a & b ^ c | (a << 1) >> 1
        g //= 1; g %= 3; g **= 1; g <<= 1; g >>= 1; g &= 7; g ^= 1; g -= 1; g += 1; g *= 1; g /= 1
        if (n := len(args)) > 1 and not a or b is not None and c not in (1, 2): return n
        while False: pass
        def inner() -> None:
            nonlocal a
            a = 1
        del kwargs["x"]
        assert a, "message"
        return [x for x in args if x], {k: v for k, v in kwargs.items()}, {*args}, (y for y in args)


    @staticmethod
    async def asynchronous(items: list[int]) -> None:
        async with lock as held, other:
            async for item in items:
                await asyncio.sleep(0)
        lambda x, /, y=1, *z, w, **v: (x, y)
        print(*items, sep=f"{items!r:>10} {items[1:2:3]} {...}", **{})


    def flow(value):
        try:
            yield from range(3)
            raise ValueError("x") from None
        except* (TypeError, ValueError) as group:
            pass
        finally:
            pass
        match value:
            case [1, *rest] | {"k": _, **others}:
                pass
            case Point(x=0) if value:
                pass
        with (open(os.devnull) as f,
              open(os.devnull) as h):
            x = f"{f!s:{h}}" \\
                "continued"
        return x[::2], b"bytes", 1_000j, 0x1F, 1e-3
    '''
).encode()
TRICKY = {
    "rare_node_kinds": RARE_NODE_KINDS,
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


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
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


FORM_FEED_LAYOUTS = {
    "first-line-of-a-block": "import torch\ndef f(t):\n\x0c    s = 1\n    x = torch.load(t)\n    y = 2\n",
    "later-line-of-a-block": "import torch\ndef f(t):\n    s = 1\n\x0c    x = torch.load(t)\n    y = 2\n",
    "another-block": "def g():\n\x0c    a = 1\nif True:\n    x = torch.load(t)\n",
}


@pytest.mark.parametrize("source", FORM_FEED_LAYOUTS.values(), ids=FORM_FEED_LAYOUTS.keys())
def test_a_form_feed_in_indentation_leaves_every_column_where_the_file_has_it(source: str) -> None:
    # libcst keeps a form feed that starts a block's first line in the indentation of every
    # line of the file, and drops one that starts a later line; columns are the file's own.
    module = cst.parse_module(source)
    positions = Positions(module, source)
    lines = source.split("\n")  # not splitlines(): a form feed ends no line
    calls = [node for node in _top_level_statements(module) if isinstance(node, cst.Call)]
    assert calls
    for call in calls:
        for where in (positions[call], positions.locate(call, _top_level_statements(module)[call])):
            line = lines[where.start.line - 1]
            assert line[where.start.column :].startswith(module.code_for_node(call))
            assert where.end.column == len(line)
