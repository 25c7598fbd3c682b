"""Findings in code that never runs are not reported: the body of ``if False:``, of a test on
a function's local bound only to a false literal, and the ``else`` of a test that always holds."""

from __future__ import annotations

import textwrap

import pytest

from torchcheck.lint.engine import lint_source
from torchcheck.lint.registry import rules_by_code

WRAP = "self.net = nn.DataParallel(self.net)"


def _rows(source: str) -> list[int]:
    result = lint_source(textwrap.dedent(source).encode(), "layer.py", rules_by_code(("TCK204",)))
    return [diagnostic.location.row for diagnostic in result.diagnostics]


def _layer(*lines: str) -> str:
    body = "\n".join(f"        {line}" for line in lines)
    return f"from torch import nn\nclass Layer(nn.Module):\n    def __init__(self, net, flag=False):\n        super().__init__()\n        self.net = net\n{body}\n"


@pytest.mark.parametrize(
    "lines",
    [
        ("parallel = False", "if parallel:", f"    {WRAP}"),
        ("if False:", f"    {WRAP}"),
        ("if 0:", f"    {WRAP}"),
        ("parallel = None", "if parallel and flag:", f"    {WRAP}"),
        ("single = True", "if single:", "    pass", "else:", f"    {WRAP}"),
        ("parallel = False", "if not parallel:", "    pass", "else:", f"    {WRAP}"),
    ],
)
def test_a_branch_that_never_runs_is_not_reported(lines: tuple[str, ...]) -> None:
    assert _rows(_layer(*lines)) == []


@pytest.mark.parametrize(
    "lines",
    [
        ("if flag:", f"    {WRAP}"),  # a parameter: the caller decides
        ("parallel = False", "if flag:", "    parallel = True", "if parallel:", f"    {WRAP}"),
        ("parallel = False or flag", "if parallel:", f"    {WRAP}"),
        ("if True:", f"    {WRAP}"),
    ],
)
def test_a_branch_that_may_run_is_reported(lines: tuple[str, ...]) -> None:
    assert len(_rows(_layer(*lines))) == 1


def test_a_module_level_flag_may_be_set_from_outside() -> None:
    source = "from torch import nn\nPARALLEL = False\ndef wrap(net):\n    if PARALLEL:\n        net = nn.DataParallel(net)\n    return net\n"
    assert _rows(source) == [5]
