"""The linter: libcst only, never torch.

Public API: :func:`lint` with :class:`LintOptions`, the :class:`Rule` base class and its
example types, and :class:`Diagnostic`. The names are resolved on first use, so that the
command line can import the cheap parts (options, cache, catalogue) without libcst.
"""

from __future__ import annotations

import importlib
from typing import Any

# public name -> module that defines it
_LAZY_EXPORTS: dict[str, str] = {
    "Diagnostic": "torchcheck.lint.diagnostic",
    "Edit": "torchcheck.lint.diagnostic",
    "Fix": "torchcheck.lint.diagnostic",
    "Location": "torchcheck.lint.diagnostic",
    "FixSafety": "torchcheck.lint.rule",
    "Invalid": "torchcheck.lint.rule",
    "Rule": "torchcheck.lint.rule",
    "Valid": "torchcheck.lint.rule",
    "Kind": "torchcheck.lint.context",
    "LintContext": "torchcheck.lint.context",
    "LintOptions": "torchcheck.lint.api",
    "LintResult": "torchcheck.lint.api",
    "lint": "torchcheck.lint.api",
}

__all__ = sorted(_LAZY_EXPORTS)


def __getattr__(name: str) -> Any:
    module_name = _LAZY_EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'torchcheck.lint' has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
