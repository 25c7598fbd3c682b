"""Blocks where a test expects the code to fail or to warn.

``with pytest.raises(...)``, ``with pytest.warns(...)`` and unittest's
``with self.assertRaises(...)`` / ``assertWarns(...)`` run code whose error or warning is the
test's subject: a test of PyTorch's own "scheduler.step() before optimizer.step()" warning
makes that mistake on purpose. The engine drops findings inside such blocks.
"""

from __future__ import annotations

import libcst as cst

from torchcheck.lint.context import LintContext

_EXPECTING_CONTEXTS = frozenset({"pytest.raises", "pytest.warns", "pytest.deprecated_call"})
_EXPECTING_METHODS = frozenset({"assertRaises", "assertRaisesRegex", "assertWarns", "assertWarnsRegex"})


class ExpectedFailureBlocks:
    """Collects, during the shared walk, the ``with`` statements that expect an error or a
    warning from their body."""

    def __init__(self, context: LintContext) -> None:
        self._context = context
        self.blocks: list[cst.With] = []

    def visit_With(self, node: cst.With) -> None:
        if any(self._expects_failure(item.item) for item in node.items):
            self.blocks.append(node)

    def _expects_failure(self, item: cst.BaseExpression) -> bool:
        if not isinstance(item, cst.Call):
            return False
        if self._context.call_name(item) in _EXPECTING_CONTEXTS:
            return True
        func = item.func
        return isinstance(func, cst.Attribute) and func.attr.value in _EXPECTING_METHODS
