from __future__ import annotations

import textwrap

import libcst as cst

from torchcheck.lint.engine import lint_source
from torchcheck.lint.testing_code import blocks_of_test_code
from torchcheck.rules.devices.data_parallel import DataParallel
from torchcheck.rules.training.forward_called_directly import ForwardCalledDirectly


def _test_code_names(source: str, filename: str = "test_loader.py") -> list[str]:
    module = cst.parse_module(textwrap.dedent(source))
    return [block.name.value for block in blocks_of_test_code(module, filename)]  # type: ignore[attr-defined]


def _reported_lines(source: str, rules: list, filename: str = "test_checkpoint.py") -> list[tuple[int, str]]:
    result = lint_source(textwrap.dedent(source).encode(), filename, rules)
    return [(diagnostic.location.row, diagnostic.code) for diagnostic in result.diagnostics]


def test_pytest_functions_fixtures_and_test_classes_are_test_code() -> None:
    source = """
    import pytest
    import unittest
    from absl.testing import absltest

    def test_loads(): ...

    @pytest.fixture(scope="module")
    def wrapped(): ...

    class TestLoader:
        def helper(self): ...

    class LoaderCase(unittest.TestCase):
        def setUp(self): ...

    class DerivedCase(LoaderCase): ...

    class AbslCase(absltest.TestCase): ...

    if pytest is not None:
        def test_guarded(): ...
    """
    assert _test_code_names(source) == [
        "test_loads", "wrapped", "TestLoader", "LoaderCase", "DerivedCase", "AbslCase", "test_guarded"
    ]


def test_test_methods_of_an_ordinary_mixin_class_are_test_code_but_its_helpers_are_not() -> None:
    source = """
    class SharedChecks:
        def build(self): ...
        def test_round_trip(self): ...
    """
    assert _test_code_names(source) == ["test_round_trip"]


def test_training_code_and_tests_nested_in_a_plain_function_are_not_test_code() -> None:
    source = """
    def train(model): ...

    class Trainer:
        def fit(self): ...

    def main():
        def test_inner(): ...
    """
    assert _test_code_names(source) == []


def test_test_names_in_a_training_script_are_not_test_code_but_test_cases_are() -> None:
    source = """
    import unittest

    def test(model, loader): ...

    class TestDataset:
        def __getitem__(self, index): ...

    class SmokeTest(unittest.TestCase): ...
    """
    assert _test_code_names(source, filename="train.py") == ["SmokeTest"]


def test_a_module_that_imports_pytest_is_a_test_module_whatever_its_name() -> None:
    source = """
    from pytest import fixture

    def test_round_trip(): ...
    """
    assert _test_code_names(source, filename="checks.py") == ["test_round_trip"]
    assert _test_code_names(source, filename="conftest.py") == ["test_round_trip"]


def test_rule_that_does_not_apply_in_tests_is_dropped_only_inside_test_code() -> None:
    source = """
    import torch.nn as nn

    def test_unwraps(model):
        wrapped = nn.DataParallel(model)
        return wrapped.forward(1)

    def train(model):
        return nn.DataParallel(model)
    """
    assert _reported_lines(source, [DataParallel, ForwardCalledDirectly]) == [(6, "TCK105"), (9, "TCK204")]


def test_training_script_named_function_test_keeps_its_findings() -> None:
    source = """
    import torch.nn as nn

    def test(model, loader):
        return nn.DataParallel(model)
    """
    assert _reported_lines(source, [DataParallel], filename="main.py") == [(5, "TCK204")]


def test_every_file_under_a_tests_folder_is_test_code() -> None:
    source = """
    import torch

    def main():
        model = torch.nn.DataParallel(torch.nn.Linear(2, 2))
        return model
    """
    assert _reported_lines(source, [DataParallel], "scripts/parity.py") == [(5, "TCK204")]
    assert _reported_lines(source, [DataParallel], "tests/functional_tests/parity.py") == []
