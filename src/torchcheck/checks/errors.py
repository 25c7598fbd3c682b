"""The exception every torchcheck check raises, and the one that says a check cannot run here."""

from __future__ import annotations

import unittest

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = ["CheckFailed", "NotApplicable"]


class CheckFailed(AssertionError):
    """A torchcheck check found a correctness problem.

    Subclasses ``AssertionError`` so that pytest reports it as an ordinary test failure
    (with assertion rewriting out of the way) and plain scripts can ``except`` it. The
    message always says what is wrong, where (parameter, buffer, module path, output
    index, step) and how big the difference is.
    """


class NotApplicable(unittest.SkipTest):
    """A check cannot run in this environment (Inductor on CPU without a C++ compiler, say).

    Not a finding about the code under test: pytest reports it as a skip with this message
    (it subclasses ``unittest.SkipTest``, which pytest and unittest both skip on), and
    plain scripts can ``except tc.NotApplicable``.
    """
