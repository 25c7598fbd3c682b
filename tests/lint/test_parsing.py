"""torchcheck's parse builds libcst's tree, rejects what libcst rejects, and leaves libcst as it was."""

from __future__ import annotations

import threading
from pathlib import Path

import libcst as cst
import pytest

from torchcheck.lint.parsing import parse_module

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted(ROOT.glob("fixtures/**/*.py"))

# Code libcst's grammar accepts and only a node's own check rejects, next to its valid twin.
REJECTED_BY_NODE_CHECKS = {
    "bare except before another handler": "try:\n    pass\nexcept:\n    pass\nexcept ValueError:\n    pass\n",
    "string concatenated with bytes": "x = 'a' b'b'\n",
    "f-string concatenated with bytes": "x = f'{a}' b'b'\n",
}
ACCEPTED = {
    "bare except last": "try:\n    pass\nexcept ValueError:\n    pass\nexcept:\n    pass\n",
    "strings concatenated": "x = 'a' f'{b}' r'c'\n",
    "bytes concatenated": "x = b'a' rb'b'\n",
    "except star": "try:\n    pass\nexcept* ValueError:\n    pass\n",
}
REJECTED_BY_GRAMMAR = ["def f(a=1, b):\n    pass\n", "f(**k, *a)\n", "x = 0777\n", "print 'x'\n", "try:\n    pass\n"]


@pytest.mark.parametrize("path", FILES, ids=lambda path: str(path.relative_to(ROOT)))
def test_the_tree_is_libcsts(path: Path) -> None:
    source = path.read_bytes()
    assert parse_module(source).deep_equals(cst.parse_module(source))


@pytest.mark.parametrize("source", REJECTED_BY_NODE_CHECKS.values(), ids=list(REJECTED_BY_NODE_CHECKS))
def test_code_only_a_node_check_rejects_is_still_rejected(source: str) -> None:
    with pytest.raises(cst.CSTValidationError):
        cst.parse_module(source)
    with pytest.raises(cst.CSTValidationError):
        parse_module(source)


@pytest.mark.parametrize("source", ACCEPTED.values(), ids=list(ACCEPTED))
def test_the_valid_twins_parse(source: str) -> None:
    assert parse_module(source).code == source


@pytest.mark.parametrize("source", REJECTED_BY_GRAMMAR)
def test_syntax_errors_are_libcsts(source: str) -> None:
    with pytest.raises(cst.ParserSyntaxError) as ours:
        parse_module(source)
    with pytest.raises(cst.ParserSyntaxError) as theirs:
        cst.parse_module(source)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("source", ["x = 1\n", "def f(:\n", "x = 'a' b'b'\n"], ids=["parsed", "syntax error", "node check"])
def test_hand_built_nodes_are_checked_again_afterwards(source: str) -> None:
    try:
        parse_module(source)
    except (cst.ParserSyntaxError, cst.CSTValidationError):
        pass
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not an identifier")
    with pytest.raises(cst.CSTValidationError):
        cst.SimpleWhitespace("x")
    with pytest.raises(cst.CSTValidationError):
        cst.Try(body=cst.IndentedBlock(body=[]), handlers=[])


def test_parses_on_several_threads_at_once_agree() -> None:
    source = (ROOT / "src/torchcheck/lint/positions.py").read_bytes()
    expected = cst.parse_module(source)
    results: list[bool] = []

    def parse_repeatedly() -> None:
        results.extend(parse_module(source).deep_equals(expected) for _ in range(3))

    threads = [threading.Thread(target=parse_repeatedly) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [True] * 12
    with pytest.raises(cst.CSTValidationError):
        cst.Name("")
