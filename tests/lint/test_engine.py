"""Engine guarantees that no single rule can show: broken fixes are never written, walks are shared."""

from __future__ import annotations

import gc
from pathlib import Path

import libcst as cst

from torchcheck.lint.engine import collect_reports, fix_source, lint_source
from torchcheck.lint.parsing import parse_module
from torchcheck.lint.registry import all_rules
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid


class BreaksTheCode(Rule):
    """A deliberately bad fix: replaces every `print(...)` call with invalid syntax."""

    code = "TCK990"
    name = "breaks-the-code"
    message = "print call"
    fix_title = "Break it"
    fix_safety = FixSafety.SAFE
    VALID = (Valid("x = 1"),)
    INVALID = (Invalid("print(1)  # TCK990", expected_replacement="never"),)

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "print":
            broken = cst.Name("placeholder")
            object.__setattr__(broken, "value", "not valid python")  # bypass libcst's validation
            self.report(node, replacement=broken)


class CountsCalls(Rule):
    """Reports every call to `count_me`."""

    code = "TCK991"
    name = "counts-calls"
    message = "count_me called"
    required_text = ("count_me",)
    VALID = (Valid("x = 1"), Valid("y = 2"))
    INVALID = (Invalid("count_me()  # TCK991"),)

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "count_me":
            self.report(node)


def test_fix_that_would_not_parse_is_never_applied() -> None:
    source = b"print(1)\n"
    result = fix_source(source, "a.py", [BreaksTheCode])
    assert result.fixed_source is None and result.fixes_applied == 0
    assert [d.code for d in result.diagnostics] == ["TCK990"]


def test_files_without_a_rules_required_text_are_not_parsed(monkeypatch) -> None:
    # libcst never sees them; a syntax error is still reported, with Python's own verdict.
    from torchcheck.lint import engine

    parsed: list[bytes] = []
    monkeypatch.setattr(engine, "parse_module", lambda source: parsed.append(source) or parse_module(source))
    assert [d.code for d in lint_source(b"def broken(:\n", "a.py", [CountsCalls]).diagnostics] == ["TCK000"]
    assert lint_source(b"x = 1\n", "a.py", [CountsCalls]).diagnostics == () and parsed == []
    assert [d.code for d in lint_source(b"count_me(\n", "a.py", [CountsCalls]).diagnostics] == ["TCK000"]


def test_diagnostics_are_sorted_by_position() -> None:
    source = b"count_me()\nx = 1\ncount_me(); count_me()\n"
    result = lint_source(source, "a.py", [CountsCalls])
    assert [(d.location.row, d.location.column) for d in result.diagnostics] == [(1, 1), (3, 1), (3, 13)]


def test_code_that_only_libcst_validation_rejects_is_a_tck000_finding() -> None:
    source = b"import torch\ntry:\n    pass\nexcept:\n    pass\nexcept ValueError:\n    pass\nx = torch.ones(3).cuda()\n"
    result = lint_source(source, "a.py", [CountsCalls, BreaksTheCode])
    assert [d.code for d in result.diagnostics] == ["TCK000"]


class Crashes(Rule):
    """Raises on every call, like a rule with a bug would."""

    code = "TCK992"
    name = "crashes"
    message = "never"
    VALID = (Valid("x = 1"), Valid("y = 2"))
    INVALID = (Invalid("f()  # TCK992"),)

    def visit_Call(self, node: cst.Call) -> None:
        raise KeyError("boom")


def test_a_crashing_rule_becomes_a_finding_instead_of_a_traceback() -> None:
    result = lint_source(b"f()\n", "a.py", [Crashes])
    assert [d.code for d in result.diagnostics] == ["TCK000"]
    assert "internal error" in result.diagnostics[0].message and "KeyError" in result.diagnostics[0].message


EXPECTED_WARNING_TESTS = '''
import unittest

import pytest
import torch


class SchedulerTest(unittest.TestCase):
    def test_warns_when_the_scheduler_steps_first(self):
        optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1)
        for epoch in range(2):
            with self.assertWarnsRegex(UserWarning, "lr_scheduler.step"):
                scheduler.step()
                optimizer.step()


def test_warns_with_pytest():
    optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1)
    for epoch in range(2):
        with pytest.warns(UserWarning):
            scheduler.step()
            optimizer.step()


class CallableFormTest(unittest.TestCase):
    def test_warns_through_a_function(self):
        optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)

        def call_scheduler_first():
            scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1)
            scheduler.step()
            optimizer.step()

        self.assertWarnsRegex(UserWarning, "lr_scheduler.step", call_scheduler_first)


def test_outside_the_block_is_still_reported():
    optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1)
    for epoch in range(2):
        scheduler.step()
        optimizer.step()
'''


def test_mistakes_a_test_expects_to_warn_or_raise_are_not_reported() -> None:
    from torchcheck.lint.registry import rules_by_code

    result = lint_source(EXPECTED_WARNING_TESTS.encode(), "test_scheduler.py", rules_by_code(["TCK104"]))
    assert [(d.code, d.location.row) for d in result.diagnostics] == [("TCK104", 43)]  # the last test only


def test_a_walk_leaves_no_reference_cycles_holding_the_tree() -> None:
    """Each worker parses hundreds of files: a tree kept alive by cycles among the walk's
    visitors waits for the garbage collector, which then traverses all of it. (Only the
    tree's nodes are looked for among the garbage: other threads of a test worker make
    garbage of their own.)"""
    source = (Path(__file__).resolve().parents[2] / "fixtures/lint/TCK114_evaluation_in_train_mode.py").read_bytes()
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        module = parse_module(source)
        assert collect_reports(module, all_rules())  # every rule walks it, and some report
        del module
        gc.collect()
        assert not [item for item in gc.garbage if isinstance(item, cst.CSTNode)]  # refcounts freed the tree
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def test_code_of_another_framework_is_not_linted() -> None:
    load = b"model = YOLOX(backbone, head)\nmodel.load_state_dict(weights, strict=False)\n"
    megengine = b"import megengine as mge\nimport megengine.module as M\n" + load
    ported = b"import megengine as mge\nimport torch\n" + load  # a converter: PyTorch code too
    assert lint_source(megengine, "build.py", all_rules()).diagnostics == ()
    assert [d.code for d in lint_source(ported, "convert.py", all_rules()).diagnostics] == ["TCK403"]
