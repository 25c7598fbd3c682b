"""Hostile input never stops a run: deep nesting, native parser crashes, odd layouts and
encodings end as findings (one TCK000 where a file cannot be linted), never as an exception.

Shapes that crash libcst's native parser are linted in a subprocess, so that a regression
fails these tests instead of killing pytest.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest

from torchcheck.lint import nesting, registry
from torchcheck.lint.engine import fix_source, lint_source
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid

ROOT = Path(__file__).resolve().parents[2]
CORPUS = sorted(ROOT.glob("fixtures/lint/*.py"))


class FlagsMarker(Rule):
    """Reports every call to `marker`; the fix renames it to `checked`."""

    code = "TCK993"
    name = "flags-marker"
    message = "marker called"
    fix_title = "Rename to checked"
    fix_safety = FixSafety.SAFE
    VALID = (Valid("checked()"),)
    INVALID = (Invalid("marker()  # TCK993", expected_replacement="checked()\n"),)

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "marker":
            self.report(node, replacement=node.with_changes(func=cst.Name("checked")))


def findings(source: str | bytes) -> list[tuple[str, int, int]]:
    data = source.encode() if isinstance(source, str) else source
    return [(d.code, d.location.row, d.location.column) for d in lint_source(data, "hostile.py", [FlagsMarker]).diagnostics]


def only_problem(source: str | bytes) -> tuple[int, int, str]:
    data = source.encode() if isinstance(source, str) else source
    (diagnostic,) = lint_source(data, "hostile.py", [FlagsMarker]).diagnostics
    assert diagnostic.code == "TCK000"
    return diagnostic.location.row, diagnostic.location.column, diagnostic.message


# ----------------------------------------------------------------------------- deep but valid code

CHAINS_OF_600 = {
    "sum": "x = " + " + ".join(["x"] * 600),
    "concatenated-strings": "x = " + " ".join(["'a'"] * 600),
    "boolean-chain": "x = " + " and ".join(["x"] * 600),
    "unary-minus": "x = " + "-" * 600 + "1",
    "attributes": "x = a" + ".a" * 600,
}


@pytest.mark.parametrize("chain", CHAINS_OF_600.values(), ids=CHAINS_OF_600.keys())
def test_a_600_term_chain_lints_like_any_other_file(chain: str) -> None:
    source = f"marker()\n{chain}\nmarker()\n"
    assert findings(source) == [("TCK993", 1, 1), ("TCK993", 3, 1)]


def test_fixes_apply_in_a_file_with_a_600_term_chain() -> None:
    source = ("marker()\nx = " + " + ".join(["x"] * 600) + "\n").encode()
    result = fix_source(source, "hostile.py", [FlagsMarker])
    assert result.fixes_applied == 1 and result.diagnostics == ()
    assert result.fixed_source is not None and result.fixed_source.startswith(b"checked()\nx = x + x")


# ----------------------------------------------------------------------------- shapes that crash libcst's parser

_LINT_ON_STDIN = '''
import json, sys
import libcst as cst
from torchcheck.lint.engine import lint_source
from torchcheck.lint.rule import Invalid, Rule, Valid

class ReportsCalls(Rule):
    """Reports every call."""
    code = "TCK994"
    name = "reports-calls"
    message = "call"
    VALID = (Valid("x = 1"),)
    INVALID = (Invalid("f()  # TCK994"),)

    def visit_Call(self, node: cst.Call) -> None:
        self.report(node)

result = lint_source(sys.stdin.buffer.read(), "deep.py", [ReportsCalls])
print(json.dumps([[d.code, d.location.row, d.location.column, d.message] for d in result.diagnostics]))
'''

CRASHING_SHAPES = {
    "parentheses-1500-deep": ("x = " + "(" * 1500 + "1" + ")" * 1500, "too many nested parentheses"),
    "unclosed-parentheses-1500": ("x = " + "(" * 1500, "too many nested parentheses"),
    "calls-nested-in-calls-1500": ("x = " + "f(" * 1500 + "1" + ")" * 1500, "too many nested parentheses"),
    "brackets-behind-strings": ("x = (" + "')' (" * 1500 + "1" + ")" * 1501, "too many nested parentheses"),
    "unary-minus-10000": ("x = " + "-" * 10_000 + "1", "nested too deeply for Python"),
    "unary-minus-over-lines-with-comments": ("x = (" + "-  # a, b = c\n" * 10_000 + "1)", "nested too deeply for Python"),
    "not-10000": ("x = " + "not " * 10_000 + "x", "nested too deeply for Python"),
    "attributes-10000": ("x = a" + ".a" * 10_000, "nested too deeply for Python"),
    "calls-10000": ("x = f" + "()" * 10_000, "nested too deeply for Python"),
    "valid-boolean-chain-10000": ("x = " + " and ".join(["x"] * 10_000), "chain of 10,000 `and`/`or` operands"),
}


@pytest.mark.parametrize(("shape", "expected"), CRASHING_SHAPES.values(), ids=CRASHING_SHAPES.keys())
def test_nesting_that_crashes_libcsts_parser_is_one_tck000_finding_with_pythons_message(shape: str, expected: str) -> None:
    source = f"f()\n{shape}\n".encode()
    run = subprocess.run([sys.executable, "-c", _LINT_ON_STDIN], input=source, capture_output=True, timeout=120, check=False)
    assert run.returncode == 0, f"the linter's process died (rc {run.returncode}): {run.stderr.decode()[-2000:]}"
    ((code, row, _, message),) = json.loads(run.stdout)
    assert code == "TCK000" and row == 2 and expected in message


def test_the_nesting_screen_flags_no_file_of_the_lint_corpus_or_of_torchcheck() -> None:
    paths = [*CORPUS, *(ROOT / "src" / "torchcheck").rglob("*.py")]
    assert [path.name for path in paths if nesting.may_be_too_deep(path.read_bytes())] == []


def test_the_nesting_screen_ignores_brackets_in_strings_and_separators_in_comments() -> None:
    assert not nesting.may_be_too_deep(b"x = '" + b"(" * 500 + b"'\n")
    assert nesting.may_be_too_deep(b"x = (" + b"-  # a, b\n" * 2500 + b"1)\n")


def test_deep_recursion_restores_the_recursion_limit_and_errors_reach_the_caller() -> None:
    before = sys.getrecursionlimit()

    def fails_deep_inside() -> None:
        with nesting.deep_recursion():
            assert sys.getrecursionlimit() == nesting.RECURSION_LIMIT
            raise ValueError("from the deep stack")

    with pytest.raises(ValueError, match="from the deep stack"):
        nesting.on_deep_stack(fails_deep_inside)
    assert sys.getrecursionlimit() == before


# ----------------------------------------------------------------------------- syntax errors where Python puts them

SYNTAX_ERRORS = {
    "invalid-syntax": ("import os\ndef broken(:\n    pass\n", (2, 12, "syntax error: invalid syntax")),
    "nul-byte": ("import os\nx = 1\0\ny = 2\n", (2, 6, "syntax error: source code string cannot contain null bytes")),
    "unterminated-string": ("import os\nx = 1\ny = 2\nz = 'abc\n", (4, 5, "syntax error: unterminated string literal (detected at line 4)")),
    "unclosed-bracket": ("import os\nx = f(\ny = 2\n", (2, 6, "syntax error: '(' was never closed")),
    "unexpected-indent": ("x = 1\n    y = 2\n", (2, 4, "syntax error: unexpected indent")),
    "non-ascii-before-the-error": ("s = 'ééé'; def (\n", (1, 12, "syntax error: invalid syntax")),
}


@pytest.mark.parametrize(("source", "expected"), SYNTAX_ERRORS.values(), ids=SYNTAX_ERRORS.keys())
def test_syntax_errors_are_reported_with_pythons_message_and_location(source: str, expected: tuple[int, int, str]) -> None:
    assert only_problem(source) == expected


def test_a_syntax_error_finding_shows_the_line_it_points_at() -> None:
    (diagnostic,) = lint_source(b"import os\ndef broken(:\n    pass\n", "hostile.py", [FlagsMarker]).diagnostics
    assert diagnostic.source_line == "def broken(:"


def test_valid_python_that_libcst_refuses_says_so() -> None:
    row, _, message = only_problem("x = " + " ".join(["'a'"] * 3001) + "\n")
    assert row == 1 and message.startswith("valid Python that torchcheck's parser (libcst) cannot read")


# ----------------------------------------------------------------------------- layout: lone continuation lines

def test_findings_after_a_lone_backslash_line_keep_their_real_line() -> None:
    source = "x = 1\n\\\nmarker()\n\\\n    \\\nmarker()\n"
    assert findings(source) == [("TCK993", 3, 1), ("TCK993", 6, 1)]


def test_noqa_on_the_real_line_after_a_lone_backslash_line_silences_the_finding() -> None:
    assert findings("x = 1\n\\\nmarker()  # noqa\nmarker()\n") == [("TCK993", 4, 1)]


def test_the_fix_after_a_lone_backslash_line_points_at_the_real_line() -> None:
    (diagnostic,) = lint_source(b"x = 1\n\\\nmarker()\n", "hostile.py", [FlagsMarker]).diagnostics
    assert diagnostic.fix is not None and diagnostic.fix.edits[0].location.row == 3
    assert diagnostic.source_line == "marker()"


def test_a_form_feed_does_not_shift_the_line_shown_with_a_finding() -> None:
    (diagnostic,) = lint_source(b"x = 1\n\x0c\nmarker()\n", "hostile.py", [FlagsMarker]).diagnostics
    assert diagnostic.location.row == 3 and diagnostic.source_line == "marker()"


# ----------------------------------------------------------------------------- encodings

def test_a_utf_16_coding_cookie_is_refused_like_python_refuses_it() -> None:
    assert only_problem("# coding: utf-16\nmarker()\n")[:2] == (1, 1)
    row, _, message = only_problem("#!/usr/bin/env python\n# -*- coding: utf-32 -*-\nmarker()\n")
    assert row == 2 and "encoding problem: utf-32" in message and "UTF-8" in message


def test_a_latin_1_cookie_keeps_working() -> None:
    source = "# -*- coding: latin-1 -*-\nname = 'é'\nmarker()\n".encode("latin-1")
    assert findings(source) == [("TCK993", 3, 1)]


def test_an_unknown_encoding_is_reported_at_its_cookie() -> None:
    row, _, message = only_problem("\n# coding: no-such-codec\nmarker()\n")
    assert row == 2 and "no-such-codec" in message


def test_a_byte_that_is_not_utf_8_is_reported_where_it_is() -> None:
    row, column, message = only_problem(b"x = 1\ny = 'ab\xff'\nmarker()\n")
    assert (row, column) == (2, 8) and message.startswith("cannot decode file")


# ----------------------------------------------------------------------------- fuzzing

HOSTILE_BYTES = [b"(", b")", b"[", b"]", b"{", b"}", b"\\\n", b"\n", b"    ", b"\t", b"\0", b"'", b'"', b'"""', b"#", b":", b"\xff", b"\r", b"\x0c", b"lambda", b"-" * 50]


def _mutated(source: bytes, rng: random.Random) -> bytes:
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(source) + 1)
        match rng.randrange(4):
            case 0:
                source = source[:at] + rng.choice(HOSTILE_BYTES) + source[at:]
            case 1:
                source = source[:at] + source[at + rng.randint(1, 20) :]
            case 2:
                source = source[:at]
            case _:
                source = source[:at] + source[at : at + 200] * rng.randint(2, 30) + source[at:]
    return source


def _mutations(count: int, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    sources = [path.read_bytes() for path in CORPUS]
    return [_mutated(rng.choice(sources), rng) for _ in range(count)]


def test_no_mutation_of_the_corpus_makes_lint_source_raise() -> None:
    rules = list(registry.all_rules())
    for source in _mutations(150, seed=20240611):
        lint_source(source, "fuzzed.py", rules)


def test_no_mutation_of_the_corpus_makes_fix_source_raise() -> None:
    rules = list(registry.all_rules())
    for source in _mutations(40, seed=7):
        fix_source(source, "fuzzed.py", rules, unsafe=True)


def test_a_file_libcst_refuses_is_reported_at_a_place_inside_the_file() -> None:
    # libcst refuses this valid file (found by bench/fuzz_lint.py) at a place past a line's end.
    source = (
        "def train(loader):\n            marker()\ndef step(x, y):\n    return loss.item()\n\\\n"
        "def clear():\n    optimizer.zero_grad()\n\n    for x, y in loader:\n            continue\n"
    )
    (diagnostic,) = lint_source(source.encode(), "hostile.py", [FlagsMarker]).diagnostics
    lines = source.split("\n")
    row, column = diagnostic.location.row, diagnostic.location.column
    assert diagnostic.code == "TCK000" and 1 <= row <= len(lines) and 1 <= column <= len(lines[row - 1]) + 1
