"""Lint one file: decode, pre-filter, parse once, walk once with every rule, report.

Positions are computed only for files that have findings (most files have none), and
then by :mod:`torchcheck.lint.positions`, at a third of the cost of libcst's provider.
"""

from __future__ import annotations

import io
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import CodeRange

from torchcheck.lint.context import LintContext, LintSettings
from torchcheck.lint.positions import Positions
from torchcheck.lint.diagnostic import (
    SYNTAX_ERROR_CODE,
    SYNTAX_ERROR_NAME,
    Diagnostic,
    Edit,
    Fix,
    Location,
)
from torchcheck.lint.rule import FixSafety, Report, Rule
from torchcheck.lint.suppression import Suppressions, skips_file
from torchcheck.lint.walker import BatchedWalker

MAX_FIX_PASSES = 10

_Finding = tuple[Diagnostic, "Report | None"]  # the report is None for TCK000


@dataclass(frozen=True)
class FileResult:
    diagnostics: tuple[Diagnostic, ...]
    fixed_source: bytes | None = None  # set when fixes changed the file
    fixes_applied: int = 0


def _problem(filename: str, message: str, row: int = 1, column: int = 1, source_line: str = "") -> Diagnostic:
    location = Location(row, column)
    return Diagnostic(filename, SYNTAX_ERROR_CODE, SYNTAX_ERROR_NAME, message, location, location, source_line)


def decode(source: bytes) -> str:
    """Decode like Python does: a BOM or a PEP 263 coding cookie, else UTF-8."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    text = source.decode(encoding)
    return text.removeprefix("\ufeff")


def _decode(source: bytes, filename: str) -> str | Diagnostic:
    try:
        return decode(source)
    except (UnicodeDecodeError, SyntaxError, LookupError) as error:
        return _problem(filename, f"cannot decode file: {error}")


def _parse(source: bytes, text: str, filename: str) -> cst.Module | Diagnostic:
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        lines = text.splitlines()
        row = max(error.raw_line, 1)
        line = lines[row - 1] if row <= len(lines) else ""
        return _problem(filename, f"syntax error: {error.message}", row, error.raw_column + 1, line)
    except cst.CSTValidationError as error:  # e.g. a bare `except:` that is not the last handler
        return _problem(filename, f"syntax error: {error}")
    except (RecursionError, MemoryError) as error:
        return _problem(filename, f"file is too deeply nested to parse: {type(error).__name__}")


def _rules_for(text: str, rules: Sequence[type[Rule]], settings: LintSettings) -> list[type[Rule]]:
    return [
        rule
        for rule in rules
        if settings.has_torch_api(rule.requires_torch)
        and (not rule.required_text or any(token in text for token in rule.required_text))
    ]


def collect_reports(module: cst.Module, rules: Sequence[type[Rule]], settings: LintSettings | None = None) -> list[Report]:
    """Run every rule over ``module`` in one walk and return their findings."""
    context = LintContext(settings)
    instances = [rule(context) for rule in rules]
    BatchedWalker([context, *instances]).walk(module)
    return [report for instance in instances for report in instance.reports]


class _Located:
    """Positions for one module, resolved on first use."""

    def __init__(self, module: cst.Module, text: str) -> None:
        self.module = module
        self.lines = text.splitlines()
        self._positions = Positions(module)

    def range_of(self, node: cst.CSTNode) -> CodeRange:
        return self._positions[node]

    def line(self, row: int) -> str:
        return self.lines[row - 1] if 0 < row <= len(self.lines) else ""


def _suppression_range(report: Report, located: _Located) -> tuple[int, int]:
    """A finding is silenced by a comment on its own lines or on its whole simple statement."""
    node_range = located.range_of(report.node)
    first, last = node_range.start.line, node_range.end.line
    if report.statement is not None:
        statement_range = located.range_of(report.statement)
        first, last = min(first, statement_range.start.line), max(last, statement_range.end.line)
    return first, last


def _fix_of(report: Report, located: _Located) -> Fix | None:
    if report.replacement is None or report.replace_target is None:
        return None
    target = located.range_of(report.replace_target)
    content = "" if isinstance(report.replacement, cst.RemovalSentinel) else located.module.code_for_node(report.replacement)
    edit = Edit(
        content,
        Location(target.start.line, target.start.column + 1),
        Location(target.end.line, target.end.column + 1),
    )
    return Fix(report.fix_safety.value, report.rule.fix_title or "Apply fix", (edit,))


def _diagnostics(filename: str, reports: list[Report], located: _Located, suppressions: Suppressions) -> list[_Finding]:
    found: list[_Finding] = []
    seen: set[tuple[str, int, int]] = set()
    for report in reports:
        first, last = _suppression_range(report, located)
        if suppressions.suppresses(report.rule.code, report.rule.name, first, last):
            continue
        node_range = located.range_of(report.node)
        start = Location(node_range.start.line, node_range.start.column + 1)
        key = (report.rule.code, start.row, start.column)
        if key in seen:
            continue
        seen.add(key)
        diagnostic = Diagnostic(
            filename=filename,
            code=report.rule.code,
            name=report.rule.name,
            message=report.message,
            location=start,
            end_location=Location(node_range.end.line, node_range.end.column + 1),
            source_line=located.line(start.row),
            fix=_fix_of(report, located),
        )
        found.append((diagnostic, report))
    found.sort(key=lambda pair: pair[0].sort_key)
    return found


def _analyse(source: bytes, filename: str, rules: Sequence[type[Rule]], settings: LintSettings | None) -> tuple[list[_Finding], cst.Module | None, _Located | None]:
    text = _decode(source, filename)
    if isinstance(text, Diagnostic):
        return [(text, None)], None, None
    active = _rules_for(text, rules, settings or LintSettings())
    if not active or skips_file(text):
        return [], None, None  # cheap text checks first: most files are never parsed
    module = _parse(source, text, filename)
    if isinstance(module, Diagnostic):
        return [(module, None)], None, None
    try:
        reports = collect_reports(module, active, settings)
    except RecursionError:
        return [(_problem(filename, "file is too deeply nested to analyse"), None)], None, None
    except Exception as error:  # noqa: BLE001 - a rule bug must not stop the run or hide the other files
        message = f"internal error while linting ({type(error).__name__}: {error}); please report it"
        return [(_problem(filename, message), None)], None, None
    if not reports:
        return [], module, None
    located = _Located(module, text)
    return _diagnostics(filename, reports, located, Suppressions.parse(text)), module, located


def lint_source(source: bytes, filename: str, rules: Sequence[type[Rule]], settings: LintSettings | None = None) -> FileResult:
    """All findings for one file's bytes; never raises for bad input."""
    if not source.strip():
        return FileResult(())
    pairs, _, _ = _analyse(source, filename, rules, settings)
    return FileResult(tuple(diagnostic for diagnostic, _ in pairs))


def _applicable(report: Report, unsafe: bool) -> bool:
    if report.replacement is None:
        return False
    return report.fix_safety is FixSafety.SAFE or (unsafe and report.fix_safety is FixSafety.UNSAFE)


def _contains(outer: CodeRange, inner: CodeRange) -> bool:
    return (outer.start.line, outer.start.column) <= (inner.start.line, inner.start.column) and (
        inner.end.line,
        inner.end.column,
    ) <= (outer.end.line, outer.end.column)


def _non_overlapping(reports: list[Report], located: _Located) -> list[Report]:
    """Replacements whose targets do not nest in another's; the rest wait for the next pass."""
    chosen: list[Report] = []
    chosen_ranges: list[CodeRange] = []
    for report in reports:
        assert report.replace_target is not None
        target = located.range_of(report.replace_target)
        if any(_contains(other, target) or _contains(target, other) for other in chosen_ranges):
            continue
        chosen.append(report)
        chosen_ranges.append(target)
    return chosen


class _ReplaceNodes(cst.CSTTransformer):
    def __init__(self, replacements: dict[cst.CSTNode, cst.CSTNode | cst.RemovalSentinel]) -> None:
        super().__init__()
        self._replacements = replacements

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> cst.CSTNode | cst.RemovalSentinel:  # type: ignore[override]
        return self._replacements.get(original_node, updated_node)


def fix_source(
    source: bytes, filename: str, rules: Sequence[type[Rule]], *, unsafe: bool = False, settings: LintSettings | None = None
) -> FileResult:
    """Apply fixes until none is left (at most ``MAX_FIX_PASSES``) and lint the result.

    Every intermediate result is re-parsed; a fix that would produce unparsable code is
    dropped along with everything after it, so the file on disk is never broken.
    """
    current, applied = source, 0
    for _ in range(MAX_FIX_PASSES):
        pairs, module, located = _analyse(current, filename, rules, settings)
        fixable = [report for _, report in pairs if report is not None and _applicable(report, unsafe)]
        if module is None or located is None or not fixable:
            break
        chosen = _non_overlapping(fixable, located)
        rewritten = module.visit(_ReplaceNodes({r.replace_target: r.replacement for r in chosen}))  # type: ignore[misc]
        candidate = rewritten.bytes
        try:
            cst.parse_module(candidate)
        except cst.ParserSyntaxError:
            break
        if candidate == current:
            break
        current, applied = candidate, applied + len(chosen)
    final = lint_source(current, filename, rules, settings)
    return FileResult(final.diagnostics, current if current != source else None, applied)
