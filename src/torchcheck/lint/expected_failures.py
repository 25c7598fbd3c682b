"""Code where a test expects an error or a warning.

``with pytest.raises(...)``, ``with pytest.warns(...)`` and unittest's
``with self.assertRaises(...)`` / ``assertWarns(...)`` run code whose error or warning is the
test's subject: a test of PyTorch's own "scheduler.step() before optimizer.step()" warning
makes that mistake on purpose. So does a function of the file handed to the callable forms
(``self.assertWarnsRegex(UserWarning, pattern, call_scheduler_first)``,
``pytest.raises(TypeError, build)``). The engine drops findings inside such code.
"""

from __future__ import annotations

import libcst as cst

from torchcheck.lint.context import LintContext

_EXPECTING_CONTEXTS = frozenset({"pytest.raises", "pytest.warns", "pytest.deprecated_call"})
_EXPECTING_METHODS = frozenset({"assertRaises", "assertRaisesRegex", "assertWarns", "assertWarnsRegex"})


class ExpectedFailureBlocks:
    """Collects, during the shared walk, the ``with`` statements that expect an error or a
    warning from their body, and the functions of the file handed to an expecting call."""

    def __init__(self, context: LintContext) -> None:
        self._context = context
        self._with_blocks: list[cst.With] = []
        self._functions: dict[str, list[cst.FunctionDef]] = {}
        self._handed: set[str] = set()

    @property
    def blocks(self) -> list[cst.CSTNode]:
        handed = [function for name in sorted(self._handed) for function in self._functions.get(name, ())]
        return [*self._with_blocks, *handed]

    def visit_With(self, node: cst.With) -> None:
        if any(self._expects_failure(item.item) for item in node.items):
            self._with_blocks.append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.setdefault(node.name.value, []).append(node)

    def visit_Call(self, node: cst.Call) -> None:
        if self._expects_failure(node):
            self._handed.update(argument.value.value for argument in node.args if isinstance(argument.value, cst.Name))

    def _expects_failure(self, item: cst.BaseExpression) -> bool:
        if not isinstance(item, cst.Call):
            return False
        if self._context.call_name(item) in _EXPECTING_CONTEXTS:
            return True
        func = item.func
        return type(func) is cst.Attribute and func.attr.value in _EXPECTING_METHODS
