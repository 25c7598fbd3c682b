"""Output formats: full (default), concise, json (ruff's schema), sarif 2.1.0, github.

Only the standard library and the diagnostic value types load with this module: the CLI
imports it to build its parser, before it knows whether it will lint anything. What needs
the rule catalogue (SARIF's rule descriptions) imports it when it runs.

File names are whatever the file system gave: on POSIX a name that is not valid UTF-8
arrives with surrogate escapes ("\\udcff"). Every format shows such a name with the bad
bytes written as ``\\xff`` and SARIF percent-encodes the raw bytes, so no output ever holds
a lone surrogate that a UTF-8 writer or a strict JSON reader would reject.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any
from urllib.parse import quote_from_bytes

import torchcheck
from torchcheck.lint.diagnostic import Diagnostic

if TYPE_CHECKING:
    from torchcheck.lint.catalogue import RuleInfo
    from torchcheck.lint.rule import Rule

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/torchcheck/torchcheck"
# The base that relative artifact URIs are resolved against; GitHub code scanning and the
# SARIF viewers know this name.
SOURCE_ROOT_ID = "%SRCROOT%"
# torchcheck's columns count code points, as libcst and ruff do, not UTF-16 units.
SARIF_COLUMN_KIND = "unicodeCodePoints"
# torchcheck has no warnings: every finding is an error, as ruff's are.
SEVERITY = "error"
GITHUB_WORKSPACE = "GITHUB_WORKSPACE"
UNKNOWN_STATISTICS_FORMAT = "cannot print statistics as {name!r}: choose one of {choices}"

_RED, _BOLD, _CYAN, _DIM, _RESET = "\033[31m", "\033[1m", "\033[36m", "\033[2m", "\033[0m"


def display_name(filename: str) -> str:
    """``filename`` as printable text: bytes that are not UTF-8 become ``\\xff`` escapes."""
    return os.fsencode(filename).decode("utf-8", "backslashreplace")


def fixable(diagnostic: Diagnostic, unsafe_fixes: bool = False) -> bool:
    """Whether ``--fix`` fixes the finding: it has a safe fix, or (with ``--unsafe-fixes``) any fix."""
    if diagnostic.fix is None:
        return False
    return diagnostic.fix.applicability == "safe" or (unsafe_fixes and diagnostic.fix.applicability == "unsafe")


# --- full and concise -------------------------------------------------------------------


class _Style:
    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def __call__(self, text: str, *codes: str) -> str:
        return f"{''.join(codes)}{text}{_RESET}" if self.colour and codes else text


def _fix_marker(diagnostic: Diagnostic, unsafe_fixes: bool) -> str:
    return "[*] " if fixable(diagnostic, unsafe_fixes) else ""


def place(diagnostic: Diagnostic) -> str:
    """``file:row:column``, or ``notebook.ipynb:cell 3:row:column`` with rows counted in the cell."""
    cell = "" if diagnostic.cell is None else f"cell {diagnostic.cell}:"
    return f"{display_name(diagnostic.filename)}:{cell}{diagnostic.location.row}:{diagnostic.location.column}"


def _header(diagnostic: Diagnostic, style: _Style, unsafe_fixes: bool) -> str:
    where = f"{place(diagnostic)}:"
    marker = _fix_marker(diagnostic, unsafe_fixes)
    return f"{style(where, _BOLD)} {style(diagnostic.code, _RED, _BOLD)} {marker}{diagnostic.message}"


def format_concise(diagnostics: Sequence[Diagnostic], colour: bool = False, *, unsafe_fixes: bool = False) -> str:
    """One line per finding; ``[*]`` marks what ``--fix`` (with ``unsafe_fixes``: ``--fix --unsafe-fixes``) fixes."""
    style = _Style(colour)
    return "".join(f"{_header(d, style, unsafe_fixes)}\n" for d in diagnostics)


def format_full(diagnostics: Sequence[Diagnostic], colour: bool = False, *, unsafe_fixes: bool = False) -> str:
    """Each finding with its source line and a caret; ``[*]`` as in :func:`format_concise`."""
    style = _Style(colour)
    blocks = []
    for d in diagnostics:
        lines = [_header(d, style, unsafe_fixes)]
        if d.source_line:
            gutter = " " * len(str(d.location.row))
            width = (d.end_location.column if d.end_location.row == d.location.row else len(d.source_line) + 1) - d.location.column
            caret = " " * (d.location.column - 1) + "^" * max(1, width)
            lines += [
                style(f"{gutter} |", _CYAN),
                f"{style(f'{d.location.row} |', _CYAN)} {d.source_line.expandtabs(1)}",
                f"{style(f'{gutter} |', _CYAN)} {style(caret, _RED)}",
            ]
            if d.fix is not None:
                lines.append(f"{gutter} = help: {d.fix.message}")
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)


# --- json -------------------------------------------------------------------------------


def _absolute(filename: str) -> str:
    return str(Path(filename).resolve())


def _json_item(d: Diagnostic) -> dict[str, Any]:
    # Keys in ruff's order (alphabetical), so a diff against ruff's output stays readable.
    return {
        "cell": d.cell,
        "code": d.code,
        "end_location": {"column": d.end_location.column, "row": d.end_location.row},
        "filename": display_name(_absolute(d.filename)),
        "fix": None
        if d.fix is None
        else {
            "applicability": d.fix.applicability,
            "edits": [
                {
                    "content": e.content,
                    "end_location": {"column": e.end_location.column, "row": e.end_location.row},
                    "location": {"column": e.location.column, "row": e.location.row},
                }
                for e in d.fix.edits
            ],
            "message": d.fix.message,
        },
        "location": {"column": d.location.column, "row": d.location.row},
        "message": d.message,
        "name": d.name,
        "noqa_row": d.location.row,
        "severity": SEVERITY,
        "url": d.url,
    }


def format_json(diagnostics: Sequence[Diagnostic], colour: bool = False) -> str:
    """The same schema as ``ruff check --output-format json``."""
    return json.dumps([_json_item(d) for d in diagnostics], indent=2) + "\n"


# --- sarif ------------------------------------------------------------------------------


def _uri_path(path: PurePath) -> str:
    """RFC 3986 path: every byte but unreserved characters and ``/`` percent-encoded."""
    return quote_from_bytes(os.fsencode(path.as_posix()), safe="/")


def _file_uri(path: Path) -> str:
    return Path(os.path.normpath(path)).as_uri()


def _directory_uri(directory: Path) -> str:
    uri = _file_uri(directory)
    return uri if uri.endswith("/") else f"{uri}/"


def _artifact_location(filename: str, root: Path) -> dict[str, str]:
    """A relative name stays relative to ``root``; one that climbs out of it, or an
    absolute one, becomes an absolute ``file://`` URI."""
    path = Path(filename)
    if path.is_absolute():
        return {"uri": _file_uri(path)}
    relative = PurePath(os.path.normpath(path))
    if relative.parts[:1] == (os.pardir,):
        return {"uri": _file_uri(root / relative)}
    return {"uri": _uri_path(relative), "uriBaseId": SOURCE_ROOT_ID}


def _rule_info(rule: RuleInfo | type[Rule]) -> RuleInfo:
    from torchcheck.lint import catalogue

    return rule if isinstance(rule, catalogue.RuleInfo) else catalogue.RuleInfo.of(rule)


def _sarif_rule(rule: RuleInfo) -> dict[str, Any]:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.message},
        "fullDescription": {"text": rule.summary},
        "help": {"text": rule.documentation, "markdown": rule.documentation},
        "helpUri": f"{INFORMATION_URI}/blob/main/rules/{rule.code}.md",
        "defaultConfiguration": {"level": SEVERITY},
    }


def _sarif_location(d: Diagnostic, root: Path) -> dict[str, Any]:
    """In a notebook the region counts rows within the cell that ``properties.cell`` names."""
    location: dict[str, Any] = {
        "physicalLocation": {
            "artifactLocation": _artifact_location(d.filename, root),
            "region": {
                "startLine": d.location.row,
                "startColumn": d.location.column,
                "endLine": d.end_location.row,
                "endColumn": d.end_location.column,
            },
        }
    }
    if d.cell is not None:
        location["properties"] = {"cell": d.cell}
    return location


def _sarif_result(d: Diagnostic, root: Path, rule_index: Mapping[str, int]) -> dict[str, Any]:
    cell = "" if d.cell is None else f"cell {d.cell}: "
    result: dict[str, Any] = {
        "ruleId": d.code,
        "level": SEVERITY,
        "message": {"text": f"{cell}{d.message} ({d.name})"},
        "locations": [_sarif_location(d, root)],
    }
    if d.code in rule_index:
        result["ruleIndex"] = rule_index[d.code]
    return result


def format_sarif(
    diagnostics: Sequence[Diagnostic], rules: Sequence[RuleInfo | type[Rule]] = (), *, root: Path | None = None
) -> str:
    """SARIF 2.1.0, as GitHub code scanning reads it.

    ``rules`` (catalogue entries or rule classes) become the driver's rules array, which
    results point into by ``ruleIndex``.

    Relative file names are taken as relative to ``root`` (default: the current working
    directory) and written as relative URIs against ``%SRCROOT%``, which the run maps to
    ``root``; absolute names become ``file://`` URIs. URIs are percent-encoded (RFC 3986),
    so they decode back to the exact file name, bytes included.
    """
    root = Path(os.path.abspath(Path.cwd() if root is None else root))
    rule_index = {rule.code: position for position, rule in enumerate(rules)}
    document = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "torchcheck",
                        "version": torchcheck.__version__,
                        "informationUri": INFORMATION_URI,
                        "rules": [_sarif_rule(_rule_info(rule)) for rule in rules],
                    }
                },
                "originalUriBaseIds": {SOURCE_ROOT_ID: {"uri": _directory_uri(root)}},
                "columnKind": SARIF_COLUMN_KIND,
                "results": [_sarif_result(d, root, rule_index) for d in diagnostics],
            }
        ],
    }
    return json.dumps(document, indent=2) + "\n"


# --- github -----------------------------------------------------------------------------


def _escape_property(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A").replace(":", "%3A").replace(",", "%2C")


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _relative_to(path: Path, base: Path) -> str | None:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return None


def _annotation_file(filename: str, environ: Mapping[str, str]) -> str:
    """GitHub resolves ``file=`` against the workspace, not against our working directory."""
    absolute = Path(os.path.abspath(filename))
    workspace = environ.get(GITHUB_WORKSPACE)
    if workspace:
        base = Path(os.path.abspath(workspace))
        # The runner may reach the workspace through a symlink: compare real paths too.
        relative = _relative_to(absolute, base) or _relative_to(absolute.resolve(), base.resolve())
        if relative is not None:
            return relative
    return str(absolute)


def format_github(diagnostics: Sequence[Diagnostic], colour: bool = False, *, environ: Mapping[str, str] = os.environ) -> str:
    """GitHub Actions workflow commands: one ``::error`` annotation per finding.

    ``file=`` is relative to ``$GITHUB_WORKSPACE`` when the file lies under it, else
    absolute, so annotations land on the right file from any working directory. A finding
    in a notebook annotates the notebook as a whole (see :func:`_annotation_lines`).
    """
    lines = []
    for d in diagnostics:
        properties = ",".join(
            [
                f"title={_escape_property(f'torchcheck ({d.code})')}",
                f"file={_escape_property(display_name(_annotation_file(d.filename, environ)))}",
                *_annotation_lines(d),
            ]
        )
        lines.append(f"::error {properties}::{_escape_data(f'{place(d)}: {d.code} {d.message}')}\n")
    return "".join(lines)


def _annotation_lines(d: Diagnostic) -> list[str]:
    """Lines of a notebook's cell are not lines of its file: such a finding annotates the
    whole notebook, and its message names the cell."""
    if d.cell is not None:
        return []
    return [
        f"line={d.location.row}",
        f"col={d.location.column}",
        f"endLine={d.end_location.row}",
        f"endColumn={d.end_location.column}",
    ]


Formatter = Callable[[Sequence[Diagnostic], bool], str]
TEXT_FORMATS: dict[str, Formatter] = {
    "full": format_full,
    "concise": format_concise,
    "json": format_json,
    "github": format_github,
}
FORMAT_NAMES = (*TEXT_FORMATS, "sarif")


# --- statistics -------------------------------------------------------------------------


@dataclass(frozen=True)
class RuleCount:
    """How often one rule fired, and how many of those findings have a safe fix."""

    code: str
    name: str
    count: int
    fixable_count: int

    @property
    def fixable(self) -> bool:
        return self.fixable_count == self.count


def count_by_rule(diagnostics: Sequence[Diagnostic], unsafe_fixes: bool = False) -> list[RuleCount]:
    """One row per rule, most frequent first (ties by code); fixable counts what ``--fix``
    fixes (with ``unsafe_fixes``, unsafe fixes too)."""
    counts: dict[tuple[str, str], list[int]] = {}
    for d in diagnostics:
        row = counts.setdefault((d.code, d.name), [0, 0])
        row[0] += 1
        row[1] += int(fixable(d, unsafe_fixes))
    rows = [RuleCount(code, name, count, fixable) for (code, name), (count, fixable) in counts.items()]
    return sorted(rows, key=lambda row: (-row.count, row.code))


def _fixable_marker(row: RuleCount, any_fixable: bool) -> str:
    # ruff's markers: every finding fixable, some, none (shown only when another rule has fixes).
    if row.fixable:
        return "[*] "
    if row.fixable_count:
        return "[-] "
    return "[ ] " if any_fixable else ""


def _statistics_table(rows: Sequence[RuleCount]) -> str:
    count_width = max((len(str(row.count)) for row in rows), default=1)
    code_width = max((len(row.code) for row in rows), default=1)
    any_fixable = any(row.fixable_count for row in rows)
    return "".join(
        f"{row.count:>{count_width}}\t{row.code:<{code_width}}\t{_fixable_marker(row, any_fixable)}{row.name}\n" for row in rows
    )


def _statistics_json(rows: Sequence[RuleCount]) -> str:
    items = [
        {"code": row.code, "name": row.name, "count": row.count, "fixable": row.fixable, "fixable_count": row.fixable_count}
        for row in rows
    ]
    return json.dumps(items, indent=2) + "\n"


def format_statistics(diagnostics: Sequence[Diagnostic], output_format: str = "full", *, unsafe_fixes: bool = False) -> str:
    """The number of findings per rule, most frequent first, shaped for ``output_format``;
    printed *instead of* the findings, in every format.

    - ``full``, ``concise``, ``github``: ruff's text table, one
      ``count<TAB>code<TAB>[*] name`` line per rule (in a GitHub Actions log it is plain
      text, which annotates nothing).
    - ``json``, ``sarif``: a JSON array like ``ruff check --statistics --output-format json``
      (objects with ``code``, ``name``, ``count``, ``fixable``, ``fixable_count``): SARIF has
      no place for counts, so a machine-readable format gets the machine-readable table.

    ``fixable`` counts what ``--fix`` fixes (with ``unsafe_fixes``, unsafe fixes too).
    Raises ValueError for any other format name.
    """
    rows = count_by_rule(diagnostics, unsafe_fixes)
    if output_format in ("json", "sarif"):
        return _statistics_json(rows)
    if output_format in FORMAT_NAMES:
        return _statistics_table(rows)
    raise ValueError(UNKNOWN_STATISTICS_FORMAT.format(name=output_format, choices=", ".join(FORMAT_NAMES)))
