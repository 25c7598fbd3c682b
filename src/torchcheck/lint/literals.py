"""Literal values a call passes, as the project index compares them without libcst: the
cached path decides deferred findings with these and must not import the parser."""

from __future__ import annotations

from collections.abc import Sequence

NOT_A_LITERAL = object()  # what an expression that is no literal evaluates to (`None` is a literal's value)

# A literal that none of a function's tests compares a parameter with (`"test"` where the
# tests ask `mode == "train"`): unequal to each of them, and true.
OTHER_LITERAL = object()


def literal_case(value: object, compared: Sequence[object]) -> object:
    """Which of a function's literal cases a caller's literal ``value`` falls on, given the
    literals the function's tests compare the parameter with: the value itself when they
    name it (or it is a bool), :data:`OTHER_LITERAL` for another true value, and
    :data:`NOT_A_LITERAL` for another false one (``0``, ``""``)."""
    if type(value) is bool or any(same_literal(seen, value) for seen in compared):
        return value
    return OTHER_LITERAL if value else NOT_A_LITERAL


def same_literal(first: object, second: object) -> bool:
    """The same literal, of the same type (``1`` is not ``True``)."""
    return type(first) is type(second) and first == second
