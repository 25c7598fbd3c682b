"""Edits shared by fixes: keyword arguments added or replaced, the keywords a transfer
stands for, and how the file spells a ``torch.nn`` class.

The argument edits keep the call's layout: a one-line call stays on one line, and a call with
one argument per line and a trailing comma gets the new argument on its own line, with the
trailing comma kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import libcst as cst

from torchcheck.lint.nodes import has_star_kwargs, keyword_argument

if TYPE_CHECKING:
    from torchcheck.lint.context import LintContext

_NO_SPACE = cst.SimpleWhitespace("")
_ONE_SPACE = cst.SimpleWhitespace(" ")


def keyword(name: str, value: cst.BaseExpression) -> cst.Arg:
    """``name=value``, spelled the PEP 8 way (no spaces around ``=``)."""
    return cst.Arg(
        value=value,
        keyword=cst.Name(name),
        equal=cst.AssignEqual(whitespace_before=_NO_SPACE, whitespace_after=_NO_SPACE),
    )


def with_keyword_appended(call: cst.Call, argument: cst.Arg) -> cst.Call:
    """``call`` with ``argument`` added after its last argument."""
    arguments = list(call.args)
    if not arguments:
        return call.with_changes(args=[argument])
    last = arguments[-1]
    separator = cst.Comma(whitespace_after=_ONE_SPACE)
    previous = arguments[-2].comma if len(arguments) > 1 else None
    if isinstance(last.comma, cst.Comma):  # a trailing comma: the new argument takes it over
        argument = argument.with_changes(comma=last.comma)
        if isinstance(previous, cst.Comma):
            separator = _line_break_like(previous)  # the layout between the other arguments
        elif isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace):
            separator = cst.Comma(whitespace_after=call.whitespace_before_args)
    else:
        if isinstance(previous, cst.Comma) and isinstance(previous.whitespace_after, cst.ParenthesizedWhitespace):
            separator = _line_break_like(previous)  # one argument per line, no trailing comma
        argument = argument.with_changes(whitespace_after_arg=last.whitespace_after_arg)
        last = last.with_changes(whitespace_after_arg=_NO_SPACE)
    arguments[-1] = last.with_changes(comma=separator)
    return call.with_changes(args=[*arguments, argument])


def _line_break_like(comma: cst.Comma) -> cst.Comma:
    """A comma followed by the same line break and indentation as ``comma``, minus comments."""
    after = comma.whitespace_after
    if not isinstance(after, cst.ParenthesizedWhitespace):
        return comma
    clean = cst.ParenthesizedWhitespace(indent=after.indent, last_line=after.last_line)
    return comma.with_changes(whitespace_after=clean)


def with_arguments_replaced(call: cst.Call, removed: Sequence[cst.Arg], replacement: cst.Arg) -> cst.Call:
    """``call`` with ``replacement`` in place of the first of ``removed`` and the others dropped.

    Each argument keeps its own comma, so the separators (and line breaks) between the
    remaining arguments stay as they were; the new last argument ends like the old last one.
    """
    original = list(call.args)
    first = removed[0]
    arguments: list[cst.Arg] = []
    for argument in original:
        if argument is first:
            arguments.append(replacement.with_changes(comma=argument.comma, whitespace_after_arg=argument.whitespace_after_arg))
        elif not any(argument is other for other in removed):
            arguments.append(argument)
    if arguments and arguments[-1] is not original[-1]:
        arguments[-1] = arguments[-1].with_changes(
            comma=original[-1].comma, whitespace_after_arg=original[-1].whitespace_after_arg
        )
    return call.with_changes(args=arguments)


def with_keywords_added(call: cst.Call, pairs: Sequence[tuple[str, cst.BaseExpression]]) -> cst.Call | None:
    """``call`` given each ``name=value`` of ``pairs``; None when there are none, a name repeats,
    or the call already passes one of them (by name or through ``**kwargs``)."""
    names = [name for name, _ in pairs]
    taken = has_star_kwargs(call) or any(keyword_argument(call, name) is not None for name in names)
    if not pairs or taken or len(set(names)) != len(names):
        return None
    for name, value in pairs:
        call = with_keyword_appended(call, keyword(name, value))
    return call


# Transfer keywords that mean nothing when a factory builds the tensor in place.
DROPPED_KEYWORDS = frozenset({"non_blocking", "copy"})


def keyword_name(argument: cst.Arg) -> str | None:
    return argument.keyword.value if argument.keyword is not None else None


def cuda_moves(call: cst.Call) -> list[tuple[str, cst.BaseExpression]] | None:
    """The factory keyword that builds a tensor where ``.cuda(...)`` moves it (``device="cuda:1"``
    for ``.cuda(1)``); None when the call's arguments cannot be spelled so."""
    kept = [argument for argument in call.args if keyword_name(argument) not in DROPPED_KEYWORDS]
    if any(argument.star or keyword_name(argument) not in (None, "device") for argument in kept):
        return None
    device = kept[-1].value if kept else cst.SimpleString('"cuda"')
    return [("device", cst.SimpleString(f'"cuda:{device.value}"') if isinstance(device, cst.Integer) else device)]


def nn_class_spelling(context: LintContext, qualified: str) -> cst.BaseExpression | None:
    """How this file spells ``torch.nn.<Class>`` here (``nn.X``, ``X`` or ``torch.nn.X``), or None.

    Only a spelling that resolves to the torch class in the current scope is returned, so a
    fix never emits a name the file does not define (or defines as something else).
    """
    short = qualified.rsplit(".", 1)[-1]
    candidates: tuple[cst.BaseExpression, ...] = (
        cst.Attribute(value=cst.Name("nn"), attr=cst.Name(short)),
        cst.Name(short),
        cst.Attribute(value=cst.Attribute(value=cst.Name("torch"), attr=cst.Name("nn")), attr=cst.Name(short)),
    )
    for candidate in candidates:
        resolved = context.qualified_name(candidate)
        if resolved is not None and resolved.startswith("torch.nn.") and resolved.endswith(f".{short}"):
            return candidate
    return None
