"""Hostile input within a budget: code hidden in f-strings, shapes that make libcst quadratic
(nested lambdas, long call chains), files too large for libcst's tree, verdicts that must not
depend on how deep in torchcheck's calls they are asked, and one rule's bug that must not
cost the file its other findings.

Cases that crash or exhaust the linter without the screens run in a subprocess, so that a
regression fails these tests instead of killing pytest. bench/hostile_inputs.py runs the
same shapes at the sizes of the reliability issue.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import libcst as cst
import pytest

from torchcheck.lint import nesting, notebooks, registry, unlintable
from torchcheck.lint.engine import lint_source
from torchcheck.lint.rule import Invalid, Rule, Valid

ROOT = Path(__file__).resolve().parents[2]
ALL_RULES = list(registry.all_rules())


class FlagsMarker(Rule):
    """Reports every call to `marker`."""

    code = "TCK993"
    name = "flags-marker"
    message = "marker called"
    VALID = (Valid("checked()"),)
    INVALID = (Invalid("marker()  # TCK993"),)

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "marker":
            self.report(node)


class BreaksOnCalls(Rule):
    """A rule with a bug: it raises on every call."""

    code = "TCK992"
    name = "breaks-on-calls"
    message = "never reported"
    VALID = (Valid("x = 1"),)
    INVALID = (Invalid("f()  # TCK992"),)

    def visit_Call(self, node: cst.Call) -> None:
        raise IndexError("pop from empty list")


def codes_and_messages(source: str, rules: list[type[Rule]]) -> list[tuple[str, int, str]]:
    result = lint_source(source.encode(), "hostile.py", rules)
    return [(d.code, d.location.row, d.message) for d in result.diagnostics]


def fstring(code: str, quote: str = '"') -> str:
    return f"f{quote}{{{code}}}{quote}"


DEEP = "(" * 300 + "1" + ")" * 300

# ----------------------------------------------------------------------------- code hidden in f-strings

CODE_IN_STRINGS = {
    "a replacement field": "x = " + fstring(DEEP),
    "a t-string's field": "x = t'{" + DEEP + "}'",
    "a raw f-string after a backslash": 'x = rf"\\{' + DEEP + '}"',
    "an f-string in an f-string": "x = " + fstring(fstring(DEEP, "'")),
    "the same quote inside a field (PEP 701)": 'x = f"{d["k"] + ' + DEEP + '}"',
    "a field in a format spec": 'x = f"{value:{' + DEEP + '}}"',
    "a field over lines of a triple-quoted f-string": 'x = f"""{\n' + DEEP + '\n}"""',
}


@pytest.mark.parametrize("source", CODE_IN_STRINGS.values(), ids=CODE_IN_STRINGS.keys())
def test_brackets_in_the_code_of_an_fstring_count_for_the_nesting_screen(source: str) -> None:
    assert nesting.may_be_too_deep(f"import torch\n{source}\ny = 1\n".encode())


TEXT_IN_STRINGS = {
    "f-string text": 'x = f"' + "(" * 300 + '{y}"',
    "doubled braces": 'x = f"{{' + "(" * 300 + '}}"',
    "a format spec's fill": "x = f\"{y:(^300}\" + '" + "(" * 300 + "'",
    "a named escape": 'x = f"\\N{LEFT PARENTHESIS}' + "(" * 300 + '"',
    "a plain string after an identifier ending in f": 'x = elif"' + "(" * 300 + '"',
}


@pytest.mark.parametrize("source", TEXT_IN_STRINGS.values(), ids=TEXT_IN_STRINGS.keys())
def test_brackets_in_the_text_of_strings_count_for_nothing(source: str) -> None:
    assert not nesting.may_be_too_deep(f"{source}\n".encode())


_LINT_ON_STDIN = """
import json, sys
from torchcheck.lint import registry
from torchcheck.lint.engine import lint_source
result = lint_source(sys.stdin.buffer.read(), "deep.py", list(registry.all_rules()))
print(json.dumps([[d.code, d.location.row, d.message] for d in result.diagnostics]))
"""


def lint_in_subprocess(source: str) -> list[list[object]]:
    run = subprocess.run(
        [sys.executable, "-c", _LINT_ON_STDIN], input=source.encode(), capture_output=True, timeout=300, check=False
    )
    assert run.returncode == 0, f"the linter's process died (rc {run.returncode}): {run.stderr.decode()[-2000:]}"
    return json.loads(run.stdout)  # type: ignore[no-any-return]


def test_parentheses_nested_60000_deep_in_an_fstring_are_one_tck000_finding() -> None:
    source = "import torch\nx = " + fstring("(" * 60_000 + "1" + ")" * 60_000) + "\n"
    ((code, row, message),) = lint_in_subprocess(source)
    assert code == "TCK000" and row == 2 and message.startswith("syntax error")


def test_the_cli_with_one_process_survives_a_deep_fstring_and_lints_the_other_files(tmp_path: Path) -> None:
    (tmp_path / "fstr.py").write_text("import torch\nx = " + fstring("(" * 60_000 + "1" + ")" * 60_000) + "\n")
    (tmp_path / "other.py").write_text('import torch\nm = torch.load("m.pt")\n')
    for arguments, stdin in (
        (["fstr.py", "other.py"], None),
        (["--jobs", "1", "fstr.py", "other.py"], None),
        (["--stdin-filename", "fstr.py", "-"], (tmp_path / "fstr.py").read_bytes()),
    ):
        command = [sys.executable, "-m", "torchcheck", "lint", "--no-cache", "--output-format", "concise", *arguments]
        run = subprocess.run(command, cwd=tmp_path, input=stdin, capture_output=True, timeout=300, check=False)
        output = run.stdout.decode()
        assert run.returncode == 1, f"{arguments}: rc {run.returncode}: {run.stderr.decode()[-2000:]}"
        assert "fstr.py:2:" in output and "TCK000" in output
        assert stdin is not None or "other.py:2:5: TCK401" in output


# ----------------------------------------------------------------------------- shapes libcst takes quadratically

QUADRATIC_SHAPES = {
    "nested-lambdas-1200": "y = " + "lambda a, b: " * 1200 + "1",
    "call-chain-1500": "y = f" + "(1,)" * 1500,
    "subscript-chain-1500": "y = f" + "[1,]" * 1500,
    "method-chain-1500": "y = f" + ".a(b=1)" * 1500,
    "conditional-chain-1500": "y = " + "a if b else " * 1500 + "c",
    "short-runs-on-150-bracket-levels": "y = " + ("f(1, " + "-" * 10) * 150 + "1" + ")" * 150,
}


@pytest.mark.parametrize("shape", QUADRATIC_SHAPES.values(), ids=QUADRATIC_SHAPES.keys())
def test_valid_code_nested_beyond_the_depth_budget_is_tck000_too_expensive(shape: str) -> None:
    started = time.perf_counter()
    found = codes_and_messages(f"import torch\nx = torch.load(f)\n{shape}\n", ALL_RULES)
    assert time.perf_counter() - started < 10  # without the screen: tens of seconds, or gigabytes
    ((code, row, message),) = found
    assert code == "TCK000" and row == 3
    assert message.startswith("valid Python, but too expensive to analyse")


def test_the_depth_budget_is_one_number_for_screen_and_verdict() -> None:
    within = "y = " + "lambda a, b: " * 400 + "1\n"
    assert nesting.may_be_too_deep(within.encode())  # the screen is a bound: it asks CPython
    assert unlintable.python_verdict(within, "x.py") is None  # which finds it within the budget


def test_a_nested_lambda_chain_within_the_budget_lints_like_any_other_file() -> None:
    source = "marker()\ny = " + "lambda a, b: " * 300 + "1\nmarker()\n"
    assert [(code, row) for code, row, _ in codes_and_messages(source, [FlagsMarker])] == [("TCK993", 1), ("TCK993", 3)]


def test_a_file_beyond_the_memory_budget_is_tck000_without_being_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nesting, "MAX_CODE_BYTES", 50_000)
    data = "DATA = [" + ", ".join(map(str, range(200))) + "]\n"
    ((code, _, message),) = codes_and_messages("import torch\n" + data * 100, ALL_RULES)
    assert code == "TCK000" and message.startswith("file is too expensive to analyse")
    strings = "TEXT = '" + "x" * 1_000 + "'\n"  # strings and comments take no room in libcst's tree
    assert codes_and_messages("import torch\nx = torch.load(f)\n" + strings * 100, ALL_RULES)[0][0] == "TCK401"


def test_the_largest_real_files_are_within_every_budget() -> None:
    paths = [*ROOT.glob("fixtures/**/*.py"), *(ROOT / "src").rglob("*.py")]
    parity = ROOT / ".cache" / "parity" / "transformers"
    paths += [parity / name for name in ("modeling_utils.py", "trainer.py", "generation/utils.py") if (parity / name).exists()]
    shapes = {path.name: nesting.measure(path.read_bytes()) for path in paths}
    assert [name for name, shape in shapes.items() if shape.may_be_too_deep or shape.too_large] == []


# ----------------------------------------------------------------------------- verdicts asked deep in torchcheck's calls

NEAR_PYTHONS_LIMIT = "import torch\nx = torch.load(f)\ny = " + "-" * 2_950 + "1\n"


def _asked_from_deep_frames(levels: int, text: str) -> object:
    if levels == 0:
        return nesting.on_deep_stack(unlintable.python_verdict, text, "u.py")
    return _asked_from_deep_frames(levels - 1, text)


def test_pythons_verdict_does_not_depend_on_how_deep_it_is_asked() -> None:
    script = "import sys; compile(sys.stdin.read(), 'u.py', 'exec')"
    subprocess.run([sys.executable, "-c", script], input=NEAR_PYTHONS_LIMIT.encode(), timeout=60, check=True)  # CPython compiles it
    shallow, deep = unlintable.python_verdict(NEAR_PYTHONS_LIMIT, "u.py"), _asked_from_deep_frames(100, NEAR_PYTHONS_LIMIT)
    assert shallow == deep
    assert shallow is not None and "for Python to compile" not in shallow.message


def test_code_cpython_compiles_near_its_limit_is_not_called_a_syntax_error() -> None:
    ((code, row, message),) = codes_and_messages(NEAR_PYTHONS_LIMIT, ALL_RULES)
    assert code == "TCK000" and row == 3 and message.startswith("valid Python, but too expensive to analyse")


# ----------------------------------------------------------------------------- one failure does not cost the others


def test_torch_first_imported_inside_an_autocast_block_keeps_the_files_findings() -> None:
    source = 'with torch.autocast("cpu"):\n    import torch\nx = torch.load(f)\n'
    assert [(code, row) for code, row, _ in codes_and_messages(source, ALL_RULES)] == [("TCK401", 3)]


def test_a_rule_that_raises_is_one_internal_error_and_the_other_rules_findings_stand() -> None:
    found = codes_and_messages("marker()\nx = 1\nmarker()\n", [BreaksOnCalls, FlagsMarker])
    assert [(code, row) for code, row, _ in found] == [("TCK000", 1), ("TCK993", 1), ("TCK993", 3)]
    assert "internal error in rule TCK992 (breaks-on-calls)" in found[0][2] and "IndexError" in found[0][2]


# ----------------------------------------------------------------------------- notebooks and workers


def _notebook(source: str) -> bytes:
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode()


def test_a_blank_line_of_50000_spaces_in_a_notebook_cell_lints_in_linear_time() -> None:
    started = time.perf_counter()
    result = notebooks.lint_notebook(_notebook("import torch\nx = torch.load(f)\n" + " " * 50_000 + "\n"), "n.ipynb", ALL_RULES)
    assert time.perf_counter() - started < 5  # a backtracking magic pattern: 35 s
    assert [d.code for d in result.diagnostics] == ["TCK401"]


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS is enforced on Linux")
def test_a_pool_worker_has_a_bounded_address_space() -> None:
    script = (
        "import resource; from torchcheck.lint import api; api._prepare_worker(); "
        "print(resource.getrlimit(resource.RLIMIT_AS)[0])"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60, check=True)
    from torchcheck.lint import api

    assert 0 < int(run.stdout) <= api.WORKER_ADDRESS_SPACE


_BURN = "import time\ndef burn(seconds):\n    end = time.process_time() + seconds\n    while time.process_time() < end:\n        pass\n"


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_CPU is enforced on Linux")
def test_a_pool_worker_that_spends_too_long_on_one_file_is_ended() -> None:
    script = _BURN + "from torchcheck.lint import api\napi.FILE_CPU_SECONDS = 1\napi._limit_cpu_for_next_file()\nburn(30)\n"
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert run.returncode == -signal.SIGXCPU


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_CPU is enforced on Linux")
def test_the_cpu_budget_is_per_file_not_per_worker() -> None:
    script = _BURN + (
        "from torchcheck.lint import api\napi.FILE_CPU_SECONDS = 1\n"
        "for _ in range(4):\n    api._limit_cpu_for_next_file()\n    burn(0.6)\nprint('survived')\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60, text=True)
    assert run.stdout.strip() == "survived"
