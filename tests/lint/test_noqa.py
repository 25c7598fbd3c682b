"""``add_noqa`` places comments that the suppression reader honours, once, keeping the file's bytes."""

from __future__ import annotations

import pytest

from torchcheck.lint.engine import fix_source, lint_source
from torchcheck.lint.noqa import add_noqa
from torchcheck.lint.registry import rules_by_code
from torchcheck.lint.suppression import skips_file

RULES = rules_by_code(["TCK201", "TCK702", "TCK703"])


def findings(source: bytes) -> list[tuple[int, str]]:
    result = lint_source(source, "model.py", RULES)
    return [(diagnostic.location.row, diagnostic.code) for diagnostic in result.diagnostics]


def silenced(source: bytes) -> tuple[bytes, int]:
    """Lint, add noqa comments for what was found, and check that linting again finds nothing."""
    found = findings(source)
    assert found, "the example must produce findings"
    result, added = add_noqa(source, found)
    assert findings(result) == []
    return result, added


def test_a_finding_gets_a_noqa_comment_at_the_end_of_its_line() -> None:
    result, added = silenced(b"import torch\nx = torch.ones(3).cuda()\n")
    assert result == b"import torch\nx = torch.ones(3).cuda()  # noqa: TCK201\n" and added == 1


def test_several_codes_on_one_line_share_one_sorted_comment() -> None:
    merged = add_noqa(b"x = 1\n", [(1, "TCK702"), (1, "TCK201"), (1, "TCK702")])
    assert merged == (b"x = 1  # noqa: TCK201, TCK702\n", 1)
    result, added = silenced(b"import torch\nmask = torch.ones(3).cuda() == float('nan')\n")
    assert result.endswith(b"  # noqa: TCK201, TCK702\n") and added == 1


def test_an_existing_noqa_with_codes_is_extended_not_repeated() -> None:
    source = b"import torch\nx = torch.ones(3).cuda() == float('nan')  # noqa: TCK702\n"
    result, added = add_noqa(source, [(2, "TCK201")])
    assert result == b"import torch\nx = torch.ones(3).cuda() == float('nan')  # noqa: TCK201, TCK702\n" and added == 1
    assert findings(result) == []


def test_an_explanation_after_the_codes_is_kept() -> None:
    result, _ = add_noqa(b"x = 1  # noqa:E501 long URL below\n", [(1, "TCK201")])
    assert result == b"x = 1  # noqa:E501, TCK201 long URL below\n"


def test_another_comment_on_the_line_is_kept_and_the_noqa_follows_it() -> None:
    result, added = silenced(b"import torch\nx = torch.ones(3).cuda()  # move to the GPU\n")
    assert result == b"import torch\nx = torch.ones(3).cuda()  # move to the GPU  # noqa: TCK201\n" and added == 1


def test_a_bare_noqa_is_left_alone() -> None:
    source = b"x = 1  # noqa\n"
    assert add_noqa(source, [(1, "TCK201")]) == (source, 0)


def test_codes_already_suppressed_by_a_torchcheck_ignore_are_not_added_again() -> None:
    source = b"x = 1  # torchcheck: ignore[TCK201]\n"
    assert add_noqa(source, [(1, "TCK201")]) == (source, 0)
    extended = add_noqa(source, [(1, "TCK201"), (1, "TCK702")])
    assert extended == (b"x = 1  # torchcheck: ignore[TCK201]  # noqa: TCK702\n", 1)


def test_running_twice_changes_nothing_the_second_time() -> None:
    source = b"import torch\na = torch.ones(3).cuda()\nb = torch.FloatTensor(3) == float('nan')\n"
    once, added = add_noqa(source, findings(source))
    assert added == 2
    assert add_noqa(once, findings(source)) == (once, 0)


def test_a_finding_inside_a_multiline_string_is_silenced_on_the_statements_last_line() -> None:
    source = b'import torch\nx = torch.ones(len("""\nabc""")).cuda()\ny = 1\n'
    result, added = silenced(source)
    assert result.split(b"\n")[2:] == [b'abc""")).cuda()  # noqa: TCK201', b"y = 1", b""] and added == 1


def test_a_finding_before_a_backslash_continuation_is_silenced_on_the_last_physical_line() -> None:
    source = b"import torch\nx = torch.ones(3).cuda() + \\\n    1\n"
    result, added = silenced(source)
    assert result == b"import torch\nx = torch.ones(3).cuda() + \\\n    1  # noqa: TCK201\n" and added == 1


def test_a_row_inside_a_docstring_never_gets_a_comment_inside_the_string() -> None:
    source = b'x = """\nline two\nline three"""\n'
    assert add_noqa(source, [(1, "TCK201"), (2, "TCK702")]) == (
        b'x = """\nline two\nline three"""  # noqa: TCK201, TCK702\n',
        1,
    )


def test_crlf_line_endings_are_kept() -> None:
    source = b"import torch\r\nx = torch.ones(3).cuda()\r\ny = 1\r\n"
    result, _ = silenced(source)
    assert result == b"import torch\r\nx = torch.ones(3).cuda()  # noqa: TCK201\r\ny = 1\r\n"


def test_a_file_without_a_final_newline_gets_none_added() -> None:
    result, _ = silenced(b"import torch\nx = torch.ones(3).cuda()")
    assert result == b"import torch\nx = torch.ones(3).cuda()  # noqa: TCK201"


def test_a_latin_1_file_stays_latin_1() -> None:
    source = "# -*- coding: latin-1 -*-\nimport torch\nx = torch.ones(3).cuda()  # caf\xe9\n".encode("latin-1")
    result, _ = silenced(source)
    expected = "# -*- coding: latin-1 -*-\nimport torch\nx = torch.ones(3).cuda()  # caf\xe9  # noqa: TCK201\n"
    assert result == expected.encode("latin-1")


def test_a_byte_order_mark_is_kept_and_the_first_line_can_take_a_comment() -> None:
    source = b"\xef\xbb\xbfimport torch; x = torch.ones(3).cuda()\n"
    result, _ = silenced(source)
    assert result == b"\xef\xbb\xbfimport torch; x = torch.ones(3).cuda()  # noqa: TCK201\n"


@pytest.mark.parametrize("row", [0, -1, 3, 99])
def test_rows_outside_the_file_are_ignored(row: int) -> None:
    assert add_noqa(b"x = 1\ny = 2\n", [(row, "TCK201")]) == (b"x = 1\ny = 2\n", 0)


def test_a_file_that_cannot_be_tokenized_is_left_unchanged() -> None:
    source = b'x = """never closed\n'
    assert add_noqa(source, [(1, "TCK201")]) == (source, 0)


@pytest.mark.parametrize(
    ("source", "skipped"),
    [
        ("# torchcheck: skip-file\nimport torch\n", True),
        ("import torch\n    #torchcheck:   SKIP-FILE\n", True),
        ("x = 1  # a comment\n\t# TorchCheck: skip-file\n", True),
        ("x = 1  # torchcheck: skip-file\n", False),  # after code: not a file-level comment
        ("x = '# torchcheck: skip-file'\n", False),
        ("# torchcheck: skip-files\n", False),
        ("x = 1  # torchcheck: skip-file\n# torchcheck: skip-file\n", True),  # the second one counts
    ],
)
def test_skip_file_is_a_comment_on_a_line_of_its_own(source: str, skipped: bool) -> None:
    assert skips_file(source) is skipped


# ----------------------------------------------------------------------------- unused-noqa (TCK001)

WITH_UNUSED_NOQA = rules_by_code(["TCK001", "TCK201", "TCK702"])


def unused(source: bytes, rules=WITH_UNUSED_NOQA, filename: str = "model.py") -> list[tuple[int, str]]:
    """(row, message) of each TCK001 finding."""
    result = lint_source(source, filename, rules)
    return [(d.location.row, d.message) for d in result.diagnostics if d.code == "TCK001"]


def fixed(source: bytes, rules=WITH_UNUSED_NOQA) -> bytes:
    result = fix_source(source, "model.py", rules)
    return result.fixed_source if result.fixed_source is not None else source


def test_a_code_that_silences_a_finding_is_used_and_one_that_silences_nothing_is_reported() -> None:
    source = b"import torch\na = torch.ones(3).cuda()  # noqa: TCK201\nb = torch.ones(3, device='cuda')  # noqa: TCK201\n"
    assert unused(source) == [(3, "Unused `noqa` directive (unused: `TCK201`)")]


def test_the_message_names_unused_non_enabled_and_unknown_codes() -> None:
    source = b"x = 1  # noqa: TCK702, TCK101, TCK999, loss-kept-with-graph\n"
    assert unused(source) == [
        (1, "Unused `noqa` directive (unused: `TCK702`; non-enabled: `TCK101`, `loss-kept-with-graph`; unknown: `TCK999`)")
    ]


def test_a_finding_on_another_line_of_the_statement_uses_the_directive() -> None:
    source = b"import torch\nx = torch.ones(\n    3,  # noqa: TCK201\n).cuda()\n"
    assert lint_source(source, "model.py", WITH_UNUSED_NOQA).diagnostics == ()
    assert findings(source.replace(b"  # noqa: TCK201", b"")) == [(2, "TCK201")]


@pytest.mark.parametrize(
    "source",
    [
        b"x = 1  # noqa\n",  # a bare noqa is ruff's and flake8's too
        b"x = 1  # noqa: E501, F401\n",  # other tools' codes are theirs to judge
        b"x = 1  # noqa: TCK201, TCK001\n",  # the rule silenced on its own line
        b"x = 1  # noqa: TCK201  # torchcheck: ignore[unused-noqa]\n",
        b"x = '# noqa: TCK201'\n",  # not a comment
    ],
)
def test_nothing_but_torchcheck_codes_that_silence_nothing_is_reported(source: bytes) -> None:
    assert unused(source) == []


def test_unused_noqa_is_opt_in() -> None:
    from torchcheck.lint.registry import select_rules

    assert "TCK001" not in [rule.code for rule in select_rules()]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (b"x = 1  # noqa: TCK201\n", b"x = 1\n"),
        (b"x = 1  # noqa: E501, TCK201\n", b"x = 1  # noqa: E501\n"),
        (b"x = 1  # noqa: TCK201 E501\n", b"x = 1  # noqa: E501\n"),
        (b"x = 1  # noqa: TCK201  # keep me\n", b"x = 1  # keep me\n"),
        (b"x = 1  # type: ignore  # noqa: TCK201\n", b"x = 1  # type: ignore\n"),
        (b"x = 1  # noqa: TCK201 - the reason\n", b"x = 1  # the reason\n"),
        (b"x = [\n    1,\n    # noqa: TCK201\n]\n", b"x = [\n    1,\n]\n"),
        (b"x = 1  # noqa: TCK201", b"x = 1"),
    ],
    ids=["whole", "other-tool-kept", "space-separated", "comment-kept", "prefix-kept", "reason-kept", "own-line", "no-final-newline"],
)
def test_the_fix_removes_only_what_silences_nothing_and_never_leaves_a_bare_noqa(source: bytes, expected: bytes) -> None:
    result = fixed(source)
    assert result == expected
    assert unused(result) == [] and b"# noqa\n" not in result


def test_the_fix_keeps_a_used_code_in_the_same_directive() -> None:
    source = b"import torch\nx = torch.ones(3).cuda()  # noqa: TCK201, TCK702\n"
    assert fixed(source) == b"import torch\nx = torch.ones(3).cuda()  # noqa: TCK201\n"
    assert fix_source(source, "model.py", WITH_UNUSED_NOQA).fixes_applied == 1


def test_the_fix_keeps_the_files_encoding_byte_order_mark_and_line_endings() -> None:
    source = "\ufeffname = 'caf\xe9'  # noqa: TCK201\r\ny = 1\r\n".encode("utf-8")
    assert fixed(source) == "\ufeffname = 'caf\xe9'\r\ny = 1\r\n".encode("utf-8")
    latin = "# -*- coding: latin-1 -*-\nname = 'caf\xe9'  # noqa: TCK999\n".encode("latin-1")
    assert fixed(latin) == "# -*- coding: latin-1 -*-\nname = 'caf\xe9'\n".encode("latin-1")


def test_a_code_silencing_a_finding_that_a_test_function_drops_is_unused() -> None:
    rules = rules_by_code(["TCK001", "TCK204"])
    wrap = b"from torch import nn\n\n\ndef {name}(net):\n    return nn.DataParallel(net)  # noqa: TCK204\n"
    assert unused(wrap.replace(b"{name}", b"wrap"), rules, "test_model.py") == []
    assert [row for row, _ in unused(wrap.replace(b"{name}", b"test_wrap"), rules, "test_model.py")] == [5]  # TCK204 is quiet in tests
