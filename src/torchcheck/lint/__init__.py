"""The linter: libcst only, never torch.

Public API: :func:`lint` with :class:`LintOptions`, the :class:`Rule` base class and its
example types, and :class:`Diagnostic`.
"""

from __future__ import annotations

from torchcheck.lint.api import LintOptions, LintResult, lint
from torchcheck.lint.context import Kind, LintContext
from torchcheck.lint.diagnostic import Diagnostic, Edit, Fix, Location
from torchcheck.lint.rule import FixSafety, Invalid, Rule, Valid

__all__ = [
    "Diagnostic",
    "Edit",
    "Fix",
    "FixSafety",
    "Invalid",
    "Kind",
    "LintContext",
    "LintOptions",
    "LintResult",
    "Location",
    "Rule",
    "Valid",
    "lint",
]
