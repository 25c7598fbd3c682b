"""The one exception every torchcheck check raises."""

from __future__ import annotations

__tracebackhide__ = True  # pytest shows a failure from the caller's line, without this module's frames
__all__ = ["CheckFailed"]


class CheckFailed(AssertionError):
    """A torchcheck check found a correctness problem.

    Subclasses ``AssertionError`` so that pytest reports it as an ordinary test failure
    (with assertion rewriting out of the way) and plain scripts can ``except`` it. The
    message always says what is wrong, where (parameter, buffer, module path, output
    index, step) and how big the difference is.
    """
