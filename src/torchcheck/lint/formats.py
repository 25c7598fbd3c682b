"""Output formats: full (default), concise, json (ruff's schema), sarif 2.1.0, github."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import torchcheck
from torchcheck.lint.diagnostic import Diagnostic
from torchcheck.lint.rule import Rule, documentation

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/torchcheck/torchcheck"

_RED, _BOLD, _CYAN, _DIM, _RESET = "\033[31m", "\033[1m", "\033[36m", "\033[2m", "\033[0m"


class _Style:
    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def __call__(self, text: str, *codes: str) -> str:
        return f"{''.join(codes)}{text}{_RESET}" if self.colour and codes else text


def _fix_marker(diagnostic: Diagnostic) -> str:
    return "[*] " if diagnostic.fix is not None and diagnostic.fix.applicability == "safe" else ""


def _header(diagnostic: Diagnostic, style: _Style) -> str:
    where = f"{diagnostic.filename}:{diagnostic.location.row}:{diagnostic.location.column}:"
    return f"{style(where, _BOLD)} {style(diagnostic.code, _RED, _BOLD)} {_fix_marker(diagnostic)}{diagnostic.message}"


def format_concise(diagnostics: Sequence[Diagnostic], colour: bool = False) -> str:
    style = _Style(colour)
    return "".join(f"{_header(d, style)}\n" for d in diagnostics)


def format_full(diagnostics: Sequence[Diagnostic], colour: bool = False) -> str:
    style = _Style(colour)
    blocks = []
    for d in diagnostics:
        lines = [_header(d, style)]
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


def _absolute(filename: str) -> str:
    return str(Path(filename).resolve())


def format_json(diagnostics: Sequence[Diagnostic], colour: bool = False) -> str:
    """The same schema as ``ruff check --output-format json``."""
    items = []
    for d in diagnostics:
        items.append(
            {
                "cell": None,
                "code": d.code,
                "end_location": {"column": d.end_location.column, "row": d.end_location.row},
                "filename": _absolute(d.filename),
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
                "noqa_row": d.location.row,
                "url": d.url,
            }
        )
    return json.dumps(items, indent=2) + "\n"


def format_sarif(diagnostics: Sequence[Diagnostic], rules: Sequence[type[Rule]] = ()) -> str:
    """SARIF 2.1.0, as GitHub code scanning reads it."""
    rule_entries = [
        {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.message},
            "fullDescription": {"text": rule.summary()},
            "help": {"text": documentation(rule), "markdown": documentation(rule)},
            "helpUri": f"{INFORMATION_URI}/blob/main/rules/{rule.code}.md",
            "defaultConfiguration": {"level": "error"},
        }
        for rule in rules
    ]
    index = {rule.code: position for position, rule in enumerate(rules)}
    results = []
    for d in diagnostics:
        result = {
            "ruleId": d.code,
            "level": "error",
            "message": {"text": f"{d.message} ({d.name})"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": Path(d.filename).as_posix()},
                        "region": {
                            "startLine": d.location.row,
                            "startColumn": d.location.column,
                            "endLine": d.end_location.row,
                            "endColumn": d.end_location.column,
                        },
                    }
                }
            ],
        }
        if d.code in index:
            result["ruleIndex"] = index[d.code]
        results.append(result)
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
                        "rules": rule_entries,
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(document, indent=2) + "\n"


def _escape_property(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A").replace(":", "%3A").replace(",", "%2C")


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def format_github(diagnostics: Sequence[Diagnostic], colour: bool = False) -> str:
    """GitHub Actions workflow commands: one ``::error`` annotation per finding."""
    lines = []
    for d in diagnostics:
        properties = ",".join(
            [
                f"title={_escape_property(f'torchcheck ({d.code})')}",
                f"file={_escape_property(d.filename)}",
                f"line={d.location.row}",
                f"col={d.location.column}",
                f"endLine={d.end_location.row}",
                f"endColumn={d.end_location.column}",
            ]
        )
        location = f"{d.filename}:{d.location.row}:{d.location.column}"
        lines.append(f"::error {properties}::{_escape_data(f'{location}: {d.code} {d.message}')}\n")
    return "".join(lines)


Formatter = Callable[[Sequence[Diagnostic], bool], str]
TEXT_FORMATS: dict[str, Formatter] = {
    "full": format_full,
    "concise": format_concise,
    "json": format_json,
    "github": format_github,
}
FORMAT_NAMES = (*TEXT_FORMATS, "sarif")


def format_statistics(diagnostics: Sequence[Diagnostic]) -> str:
    counts = Counter((d.code, d.name) for d in diagnostics)
    fixable = {d.code for d in diagnostics if d.fix is not None and d.fix.applicability == "safe"}
    width = max((len(str(n)) for n in counts.values()), default=1)
    return "".join(
        f"{count:>{width}}\t{code}\t{'[*] ' if code in fixable else ''}{name}\n"
        for (code, name), count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    )
