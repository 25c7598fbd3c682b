"""Code that tests other code: pytest test functions and fixtures, unittest test cases.

A test exercises an API on purpose: it wraps a model in ``nn.DataParallel`` to check that
a checkpoint loader strips the ``module.`` prefix, or feeds a half tensor under autocast to
check a layer's dtype handling. Advice about how to train well (speed, the numerics of a
training step) does not apply there. A rule says so with ``applies_in_tests = False`` and
the engine drops its findings inside test code.

Test code is recognised by the conventions the test runners collect tests by:

* a function named ``test*`` (pytest's default ``python_functions``), at module level or in
  a class (a mixin of shared ``test_*`` methods included);
* a function decorated with ``@pytest.fixture`` (or ``@fixture``);
* a whole class - helpers and ``setUp`` included - named ``Test*`` (pytest's default
  ``python_classes``) or deriving from a ``*TestCase`` class (``unittest.TestCase``,
  ``absltest.TestCase``, PyTorch's ``TestCase``) or from another test class of the file.

The module's statements are searched only when an opted-out rule has a finding, and only
down to class bodies: a test nested in an ordinary function is not collected by a runner.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import libcst as cst

from torchcheck.lint.context import dotted_name

_TEST_FUNCTION_PREFIX = "test"
_TEST_CLASS_PREFIX = "Test"
_TEST_CASE_SUFFIX = "TestCase"
_FIXTURE = "fixture"


def blocks_of_test_code(module: cst.Module) -> list[cst.CSTNode]:
    """The functions and classes of ``module`` that are test code (outermost only)."""
    return list(_test_code_in(module.body, test_classes=set()))


def _test_code_in(statements: Sequence[cst.CSTNode], test_classes: set[str]) -> Iterator[cst.CSTNode]:
    for statement in statements:
        if isinstance(statement, cst.FunctionDef):
            if _is_test_function(statement):
                yield statement
        elif isinstance(statement, cst.ClassDef):
            if _is_test_class(statement, test_classes):
                test_classes.add(statement.name.value)
                yield statement
            else:
                yield from _test_code_in(_body_of(statement), test_classes)
        elif isinstance(statement, (cst.If, cst.Try, cst.With)):
            yield from _test_code_in(_blocks_of(statement), test_classes)


def _is_test_function(function: cst.FunctionDef) -> bool:
    return function.name.value.startswith(_TEST_FUNCTION_PREFIX) or any(
        _decorator_name(decorator).rsplit(".", 1)[-1] == _FIXTURE for decorator in function.decorators
    )


def _decorator_name(decorator: cst.Decorator) -> str:
    expression = decorator.decorator
    if isinstance(expression, cst.Call):  # @pytest.fixture(scope="module")
        expression = expression.func
    return dotted_name(expression) or ""


def _is_test_class(node: cst.ClassDef, test_classes: set[str]) -> bool:
    if node.name.value.startswith(_TEST_CLASS_PREFIX):
        return True
    for base in node.bases:
        name = dotted_name(base.value) if base.keyword is None else None
        if name is not None and (name.endswith(_TEST_CASE_SUFFIX) or name in test_classes):
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
