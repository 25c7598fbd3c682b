"""Code that tests other code: pytest test functions and fixtures, unittest test cases.

A test exercises an API on purpose: it wraps a model in ``nn.DataParallel`` to check that
a checkpoint loader strips the ``module.`` prefix, or feeds a half tensor under autocast to
check a layer's dtype handling. Advice about how to train well (speed, the numerics of a
training step) does not apply there. A rule says so with ``applies_in_tests = False`` and
the engine drops its findings inside test code.

Test code is recognised by where it lives - every file under a ``tests/`` or ``test/``
folder, collected or not (a parity script, a test utility) - and by the conventions the
test runners collect tests by:

* a whole class - helpers and ``setUp`` included - deriving from a ``*TestCase`` class
  (``unittest.TestCase``, ``absltest.TestCase``, PyTorch's ``TestCase``) or from another
  test class of the file;
* in a test module - a file pytest collects (``test_*.py``, ``*_test.py``, ``conftest.py``)
  or one that imports pytest -, also a function named ``test*`` (pytest's default
  ``python_functions``; at module level or in a class, a mixin of shared ``test_*``
  methods included), a function decorated with ``@pytest.fixture``, and a whole class
  named ``Test*`` (pytest's default ``python_classes``). Elsewhere these names mean
  something else: a training script's ``def test(model, loader)`` evaluates the model,
  its ``TestDataset`` loads the test split.

The module's statements are searched only when an opted-out rule has a finding, and only
down to class bodies: a test nested in an ordinary function is not collected by a runner.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath

import libcst as cst

from torchcheck.lint.nodes import dotted_name

_TEST_FUNCTION_PREFIX = "test"
_TEST_CLASS_PREFIX = "Test"
_TEST_CASE_SUFFIX = "TestCase"
_FIXTURE = "fixture"
_PYTEST = "pytest"
_CONFTEST = "conftest.py"
_TEST_DIRECTORIES = frozenset({"tests", "test"})


@dataclass
class _Search:
    """What the search knows about the module: whether pytest collects it, and its test classes."""

    in_test_module: bool
    test_classes: set[str] = field(default_factory=set)


def blocks_of_test_code(module: cst.Module, filename: str) -> list[cst.CSTNode]:
    """The functions and classes of ``module`` (read from ``filename``) that are test code,
    outermost only."""
    if _in_test_directory(filename):
        return list(module.body)
    search = _Search(in_test_module=_is_test_file(filename) or _imports_pytest(module))
    return list(_test_code_in(module.body, search))


def _in_test_directory(filename: str) -> bool:
    """A file under a ``tests/`` (or ``test/``) folder: a test, a parity script or a test
    utility, run to exercise the code rather than to train."""
    return any(part in _TEST_DIRECTORIES for part in PurePath(filename).parent.parts)


def _is_test_file(filename: str) -> bool:
    name = PurePath(filename).name
    return name == _CONFTEST or (name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py")))


def _imports_pytest(module: cst.Module) -> bool:
    """Whether a module-level ``import pytest`` / ``from pytest import ...`` is in the file."""
    return any(
        _PYTEST in _imported_packages(statement)
        for line in module.body
        if isinstance(line, cst.SimpleStatementLine)
        for statement in line.body
    )


def _imported_packages(statement: cst.BaseSmallStatement) -> set[str]:
    if isinstance(statement, cst.Import):
        names = [dotted_name(alias.name) for alias in statement.names]
    elif isinstance(statement, cst.ImportFrom) and statement.module is not None:
        names = [dotted_name(statement.module)]
    else:
        return set()
    return {name.split(".")[0] for name in names if name is not None}


def _test_code_in(statements: Sequence[cst.CSTNode], search: _Search) -> Iterator[cst.CSTNode]:
    for statement in statements:
        if isinstance(statement, cst.FunctionDef):
            if search.in_test_module and _is_test_function(statement):
                yield statement
        elif isinstance(statement, cst.ClassDef):
            if _is_test_class(statement, search):
                search.test_classes.add(statement.name.value)
                yield statement
            else:
                yield from _test_code_in(_body_of(statement), search)
        elif isinstance(statement, (cst.If, cst.Try, cst.With)):
            yield from _test_code_in(_blocks_of(statement), search)


def _is_test_function(function: cst.FunctionDef) -> bool:
    return function.name.value.startswith(_TEST_FUNCTION_PREFIX) or any(
        _decorator_name(decorator).rsplit(".", 1)[-1] == _FIXTURE for decorator in function.decorators
    )


def _decorator_name(decorator: cst.Decorator) -> str:
    expression = decorator.decorator
    if isinstance(expression, cst.Call):  # @pytest.fixture(scope="module")
        expression = expression.func
    return dotted_name(expression) or ""


def _is_test_class(node: cst.ClassDef, search: _Search) -> bool:
    if search.in_test_module and node.name.value.startswith(_TEST_CLASS_PREFIX):
        return True
    for base in node.bases:
        name = dotted_name(base.value) if base.keyword is None else None
        if name is not None and (name.endswith(_TEST_CASE_SUFFIX) or name in search.test_classes):
            return True
    return False


def _body_of(node: cst.ClassDef | cst.If | cst.Try | cst.With | cst.Else | cst.ExceptHandler | cst.Finally) -> Sequence[cst.CSTNode]:
    body = node.body
    return body.body if isinstance(body, cst.IndentedBlock) else ()


def _blocks_of(statement: cst.If | cst.Try | cst.With) -> list[cst.CSTNode]:
    """The statements of every branch of a compound statement at module or class level."""
    statements = list(_body_of(statement))
    if isinstance(statement, cst.If):
        orelse = statement.orelse
        if isinstance(orelse, cst.If):
            statements.extend(_blocks_of(orelse))
        elif isinstance(orelse, cst.Else):
            statements.extend(_body_of(orelse))
    elif isinstance(statement, cst.Try):
        for part in (*statement.handlers, statement.orelse, statement.finalbody):
            if part is not None:
                statements.extend(_body_of(part))
    return statements
