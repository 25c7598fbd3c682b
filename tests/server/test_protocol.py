"""Positions and edits in LSP terms: 0-based lines, characters in the client's encoding."""

from __future__ import annotations

import pytest

pytest.importorskip("lsprotocol")

from lsprotocol import types  # noqa: E402

from torchcheck.lint.diagnostic import Location  # noqa: E402
from torchcheck.server import protocol  # noqa: E402

UTF8, UTF16, UTF32 = types.PositionEncodingKind.Utf8, types.PositionEncodingKind.Utf16, types.PositionEncodingKind.Utf32
LINES = ['label = "😀"; out = model.forward(x)']


@pytest.mark.parametrize(("encoding", "character"), [(UTF16, 20), (UTF32, 19), (UTF8, 22)])
def test_a_column_after_an_emoji_counts_it_in_the_clients_encoding(encoding: str, character: int):
    position = protocol.to_position(Location(1, 20), LINES, encoding)
    assert (position.line, position.character) == (0, character)


def test_a_location_past_the_last_line_stays_past_it_instead_of_failing():
    position = protocol.to_position(Location(3, 1), LINES)
    assert (position.line, position.character) == (2, 0)


def test_lines_break_where_lsp_breaks_them_and_not_at_form_feeds():
    assert protocol.split_lines("a\r\nb\rc\nd\x0ce") == ["a", "b", "c", "d\x0ce"]


def _apply(text: str, edit: types.TextEdit) -> str:
    lines = text.splitlines(keepends=True) or [""]

    def offset(position: types.Position) -> int:
        line = lines[position.line] if position.line < len(lines) else ""
        prefix = line.encode("utf-16-le")[: 2 * position.character].decode("utf-16-le")
        return sum(len(text) for text in lines[: position.line]) + len(prefix)

    return text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("x = 1\ny = 😀.forward(2)\n", "x = 1\ny = 😀(2)\n"),
        ("a\r\nb\r\n", "a\r\nb  # noqa: TCK105\r\n"),
        ("a\r\nb\r\n", "a\r\nc\r\nb\r\n"),
        ("same\n", "same\n"),
        ("", "new\n"),
        ("a\r\nb", "a\r\r\nb"),
    ],
)
def test_a_replacement_edit_turns_the_old_text_into_the_new(old: str, new: str):
    assert _apply(old, protocol.replacement_edit(old, new)) == new


def test_a_replacement_edit_touches_only_the_changed_line():
    edit = protocol.replacement_edit("one\ntwo\nthree\n", "one\ntwo  # noqa: TCK101\nthree\n")
    assert (edit.range.start.line, edit.range.end.line) == (1, 1)
    assert edit.new_text == "  # noqa: TCK101"


def test_a_replacement_edit_never_ends_between_carriage_return_and_line_feed():
    edit = protocol.replacement_edit("a\r\nb", "a\r\r\nb")
    assert (edit.range.start.line, edit.range.start.character) == (0, 1)
    assert (edit.range.end.line, edit.range.end.character) == (1, 0)
    assert edit.new_text == "\r\r\n"
