"""Lint one file: decode, pre-filter, parse once, walk once with every rule, report.

Positions are computed only for files that have findings (most files have none), and
then by :mod:`torchcheck.lint.positions`, at a third of the cost of libcst's provider.

No input makes these functions raise: a file that cannot be linted is one TCK000 finding
(:mod:`torchcheck.lint.unlintable`). libcst runs on a deep stack, after a cheap screen for
the nesting that would crash its native parser (:mod:`torchcheck.lint.nesting`).
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import re
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import libcst as cst
from libcst.metadata import CodeRange

from torchcheck.lint import idioms, nesting, noqa
from torchcheck.lint.context import LintContext, LintSettings
from torchcheck.lint.diagnostic import Diagnostic, Edit, Fix, Location
from torchcheck.lint.expected_failures import ExpectedFailureBlocks
from torchcheck.lint.unreachable import never_runs
from torchcheck.lint.exports import ProjectFacts, offers_more_than_imports
from torchcheck.lint.parsing import parse_module
from torchcheck.lint.positions import Positions, rewritten_bytes
from torchcheck.lint.project import (
    DeferredFinding,
    ExportSummary,
    imports_summary,
    settle_locally,
)
from torchcheck.lint.rule import FixSafety, Report, Rule
from torchcheck.lint.suppression import Suppressions, skips_file
from torchcheck.lint.testing_code import blocks_of_test_code
from torchcheck.lint.unlintable import (
    decode_or_problem,
    problem,
    python_refusal,
    python_verdict,
    source_lines,
    unparsable,
)
from torchcheck.lint.walker import BatchedWalker

# Fixes nested in one another take one pass per level (ruff's budget too); a file that
# still has fixes after this many passes keeps them as findings.
MAX_FIX_PASSES = 100
TOO_DEEP_TO_ANALYSE = "file is too deeply nested to analyse ({reason})"
INTERNAL_ERROR = "internal error while linting ({kind}: {error}); please report it"
INTERNAL_ERROR_IN_RULE = (
    "internal error in rule {code} ({name}) ({kind}: {error}); please report it. "
    "The findings of the other rules stand"
)
TOO_LARGE_TO_ANALYSE = (
    "file is too expensive to analyse: {size:,} bytes of code outside strings and comments, more than "
    "the {limit:,} that torchcheck's parser (libcst) reads within about 2 GB of memory"
)

_Finding = tuple[Diagnostic, "Report | None"]  # the report is None for TCK000
_Analysis = tuple[list[_Finding], "cst.Module | None", "_Located | None", "ExportSummary | None"]


@dataclass(frozen=True)
class FileResult:
    diagnostics: tuple[Diagnostic, ...]
    fixed_source: bytes | None = None  # set when fixes changed the file
    fixes_applied: int = 0
    # For the project index (lint/project.py): findings that hold only given facts about
    # other files, and what this file offers the others (None when it could not be read).
    deferred: tuple[DeferredFinding, ...] = ()
    exports: ExportSummary | None = None


_DEFAULT_TEXT_GATE = Rule.may_fire_in.__func__
_IMPORTS_TORCH = re.compile(r"^[ \t]*(?:import|from)[ \t]+torch\b", re.MULTILINE)
_IMPORTS_OTHER_FRAMEWORK = re.compile(r"^[ \t]*(?:import|from)[ \t]+(?:%s)\b" % "|".join(idioms.OTHER_FRAMEWORKS), re.MULTILINE)


def _written_for_another_framework(text: str) -> bool:
    return _IMPORTS_OTHER_FRAMEWORK.search(text) is not None and _IMPORTS_TORCH.search(text) is None


def _rules_for(text: str, rules: Sequence[type[Rule]], settings: LintSettings) -> list[type[Rule]]:
    """The rules that may fire in ``text``: none in another framework's code. Rules share
    their required substrings (`torch`, `backward`, `DataLoader` ...): each is looked for in
    the file once, not once a rule."""
    if _written_for_another_framework(text):
        return []
    found: dict[str, bool] = {}

    def occurs(token: str) -> bool:
        present = found.get(token)
        if present is None:
            present = found[token] = token in text
        return present

    def may_fire(rule: type[Rule]) -> bool:
        if rule.may_fire_in.__func__ is not _DEFAULT_TEXT_GATE:  # a rule with its own gate
            return rule.may_fire_in(text)
        return not rule.required_text or any(map(occurs, rule.required_text)) or rule.matches_required_pattern(text)

    return [rule for rule in rules if settings.has_torch_api(rule.requires_torch) and may_fire(rule)]


def collect_reports(module: cst.Module, rules: Sequence[type[Rule]], settings: LintSettings | None = None) -> list[Report]:
    """Run every rule over ``module`` in one walk and return their findings."""
    return _walk(module, rules, settings, module.code).reports


class _Walked(NamedTuple):
    reports: list[Report]
    exports: ExportSummary
    expected_failures: list[cst.CSTNode]  # findings inside these are what a test expects
    failures: dict[object, Exception] = {}  # visitor (a rule, or the shared context) -> its first error


def _walk(module: cst.Module, rules: Sequence[type[Rule]], settings: LintSettings | None, text: str, *, guarded: bool = False) -> _Walked:
    """One walk with the context, the project facts and every rule: the findings, the
    file's export summary and the blocks where a test expects an error or a warning.
    ``guarded``: an exception in a visitor is recorded in ``failures`` instead of ending the
    walk; a failed rule is silent from then on and its findings are dropped."""
    context = LintContext(settings, text)
    context.project = ProjectFacts(context, text)
    expected = ExpectedFailureBlocks(context)
    instances = [rule(context) for rule in rules]

    def entering(statement: cst.CSTNode) -> None:
        context.top_level_statement = statement

    visitors = [context, context.project, expected, *instances]
    failures: dict[object, Exception] = {}
    if guarded:
        _guard(visitors, instances, failures)
    BatchedWalker(visitors).walk_module(module, entering)
    reports = [report for instance in instances if instance not in failures for report in instance.reports]
    if reports:
        reports = [report for report in reports if not never_runs(context.binder, report.node)]
    walked = _Walked(reports, context.project.export_summary(), expected.blocks, failures)
    _drop_state(visitors)
    return walked


def _guard(visitors: list[object], rules: list[Rule], failures: dict[object, Exception]) -> None:
    """Wrap every handler of ``visitors`` so that an exception is recorded against the
    visitor it came from: the innermost rule in its traceback (a rule's callback may run
    inside the context's handler), else the visitor whose handler raised. Costs a call a
    handler, so only the walk that follows a failed one is guarded."""
    rule_ids = {id(rule): rule for rule in rules}

    def culprit(error: Exception, visitor: object) -> object:
        found = visitor
        for frame, _ in traceback.walk_tb(error.__traceback__):
            owner = frame.f_locals.get("self")
            if id(owner) in rule_ids and owner is rule_ids[id(owner)]:
                found = owner
        return found

    def guarded(visitor: object, handler: Callable[[cst.CSTNode], object]) -> Callable[[cst.CSTNode], object]:
        def run(node: cst.CSTNode) -> object:
            if visitor in failures:
                return None  # a failed rule stays silent; the shared visitors carry on
            try:
                return handler(node)
            except (RecursionError, MemoryError):
                raise
            except Exception as error:  # noqa: BLE001 - recorded, reported as TCK000 with the other findings
                failures.setdefault(culprit(error, visitor), error)
                return None

        return run

    for visitor in visitors:
        for name in dir(type(visitor)):
            if name.startswith(("visit_", "leave_")):
                setattr(visitor, name, guarded(visitor, getattr(visitor, name)))


def _drop_state(visitors: list[object]) -> None:
    """Forget what the walk's visitors learned. They refer to one another (a rule registers
    callbacks with the context, the context knows the project facts), and such cycles would
    keep the file's whole tree alive until the garbage collector traverses it: measured, a
    twentieth of a worker's time."""
    for visitor in visitors:
        vars(visitor).clear()


class _Located:
    """Positions for one module, resolved on first use."""

    def __init__(self, module: cst.Module, text: str) -> None:
        self.module = module
        self.lines = source_lines(text)
        self._positions = Positions(module, text)

    def range_of(self, node: cst.CSTNode, near: cst.CSTNode | None = None) -> CodeRange:
        """Where ``node`` is; ``near``, the module-level statement holding it, makes that cheap."""
        return self._positions.locate(node, near)

    def line(self, row: int) -> str:
        return self.lines[row - 1] if 0 < row <= len(self.lines) else ""


def _suppression_range(report: Report, located: _Located) -> tuple[int, int]:
    """A finding is silenced by a comment on its own lines or on its whole simple statement."""
    node_range = located.range_of(report.node, report.top_level)
    first, last = node_range.start.line, node_range.end.line
    if report.statement is not None:
        statement_range = located.range_of(report.statement, report.top_level)
        first, last = min(first, statement_range.start.line), max(last, statement_range.end.line)
    return first, last


def _fix_of(report: Report, located: _Located) -> Fix | None:
    if report.replacement is None or report.replace_target is None:
        return None
    target = located.range_of(report.replace_target, report.top_level)
    content = "" if isinstance(report.replacement, cst.RemovalSentinel) else located.module.code_for_node(report.replacement)
    edit = Edit(
        content,
        Location(target.start.line, target.start.column + 1),
        Location(target.end.line, target.end.column + 1),
    )
    return Fix(report.fix_safety.value, report.rule.fix_title or "Apply fix", (edit,))


def _diagnostics(filename: str, reports: list[Report], located: _Located, suppressions: Suppressions) -> list[_Finding]:
    found: list[_Finding] = []
    seen: set[tuple[object, ...]] = set()
    for report in reports:
        if suppressions.by_line and suppressions.suppresses(report.rule.code, report.rule.name, *_suppression_range(report, located)):
            continue  # (a statement's range costs a regeneration of its code: asked only where a comment may silence)
        node_range = located.range_of(report.node, report.top_level)
        start = Location(node_range.start.line, node_range.start.column + 1)
        # alternatives the project decides between (which of two submodules is tied) stay apart
        key = (report.rule.code, start.row, start.column, tuple(report.conditions))
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


def _outside(blocks: list[cst.CSTNode], reports: list[Report], located: _Located) -> list[Report]:
    """The reports that do not lie in a block where a test expects an error or a warning."""
    if not blocks:
        return reports
    ranges = [located.range_of(block, near=block) for block in blocks]  # exact for module-level blocks
    spans = [(block_range.start.line, block_range.end.line) for block_range in ranges]
    return [
        report
        for report in reports
        if not any(first <= located.range_of(report.node, report.top_level).start.line <= last for first, last in spans)
    ]


def _applying_here(module: cst.Module, filename: str, reports: list[Report], located: _Located) -> list[Report]:
    """The reports, less those of rules that do not apply in tests (``applies_in_tests``)
    that lie in test code: test functions, fixtures and test classes."""
    if all(report.rule.applies_in_tests for report in reports):
        return reports
    outside_tests = set(map(id, _outside(blocks_of_test_code(module, filename), reports, located)))
    return [report for report in reports if report.rule.applies_in_tests or id(report) in outside_tests]


def _unlintable(finding: Diagnostic) -> _Analysis:
    return [(finding, None)], None, None, None


def _collected(
    module: cst.Module, rules: Sequence[type[Rule]], settings: LintSettings | None, filename: str, text: str
) -> _Walked | Diagnostic:
    try:
        try:
            return _walk(module, rules, settings, text)
        except RecursionError:
            raise
        except Exception:  # noqa: BLE001 - a rule bug must not stop the run or hide the other findings
            return _walk(module, rules, settings, text, guarded=True)  # this time each failure is the visitor's own
    except RecursionError as error:
        return problem(filename, TOO_DEEP_TO_ANALYSE.format(reason=error))
    except Exception as error:  # noqa: BLE001 - outside any visitor: the file cannot be linted
        return problem(filename, INTERNAL_ERROR.format(kind=type(error).__name__, error=error))


def _internal_errors(filename: str, failures: dict[object, Exception]) -> list[_Finding]:
    found = []
    for visitor, error in failures.items():
        kind = type(error).__name__
        if isinstance(visitor, Rule):
            message = INTERNAL_ERROR_IN_RULE.format(code=visitor.code, name=visitor.name, kind=kind, error=error)
        else:
            message = INTERNAL_ERROR.format(kind=kind, error=error)
        found.append((problem(filename, message), None))
    return found


def _unused_noqa_rule(rules: Sequence[type[Rule]]) -> type[Rule] | None:
    return next((rule for rule in rules if rule.code == noqa.UNUSED_NOQA_CODE), None)


def _with_unused_noqa(
    found: list[_Finding], filename: str, suppressions: Suppressions, located: _Located, rules: Sequence[type[Rule]], enabled: frozenset[str]
) -> list[_Finding]:
    """``found`` plus the unused-noqa findings, which need every other finding placed first."""
    rule = _unused_noqa_rule(rules)
    if rule is None:
        return found
    unused = noqa.unused_noqa(filename, suppressions, located.lines, enabled, rule.name, rule.fix_title or "")
    return sorted([*found, *((diagnostic, None) for diagnostic in unused)], key=lambda pair: pair[0].sort_key)


def _parse_and_report(
    source: bytes, text: str, filename: str, rules: Sequence[type[Rule]], settings: LintSettings | None, enabled: frozenset[str] = frozenset()
) -> _Analysis:
    """Everything libcst does for one file; runs on a deep stack. Raises libcst's errors.
    ``enabled``: the codes of every rule on for the file, ``rules`` those that may fire in it."""
    with nesting.deep_recursion():
        module = parse_module(source)
        collected = _collected(module, rules, settings, filename, text)
        if isinstance(collected, Diagnostic):
            return _unlintable(collected)
        reports, exports, expected_failures, failures = collected
        failed = _internal_errors(filename, failures)
        if not reports and _unused_noqa_rule(rules) is None:
            return failed, module, None, exports
        located = _Located(module, text)
        reports = _applying_here(module, filename, _outside(expected_failures, reports, located), located)
        suppressions = Suppressions.parse(text)
        found = _diagnostics(filename, reports, located, suppressions)
        return [*failed, *_with_unused_noqa(found, filename, suppressions, located, rules, enabled)], module, located, exports


def _python_refuses(source: bytes, text: str, filename: str) -> Diagnostic | None:
    """TCK000 for the rare file too large for libcst's tree to fit the memory budget; else
    Python's verdict on a file that may nest deeply enough to crash libcst's parser or make
    it quadratic, or that holds a NUL byte (which libcst reads and Python refuses)."""
    shape = nesting.measure(source)
    if shape.too_large:
        return problem(filename, TOO_LARGE_TO_ANALYSE.format(size=shape.code_bytes, limit=nesting.MAX_CODE_BYTES))
    if not shape.may_be_too_deep and "\0" not in text:
        return None
    return nesting.on_deep_stack(python_verdict, text, filename)


def _with_libcst(
    source: bytes, text: str, filename: str, rules: Sequence[type[Rule]], settings: LintSettings | None, enabled: frozenset[str] = frozenset()
) -> _Analysis:
    """The analysis on a deep stack; a file libcst cannot take is one TCK000 finding."""
    # Handed over in a list that is emptied here: the deep-stack thread keeps its last call
    # and result until the next one comes, and the result must not keep the tree alive.
    handed: list[_Analysis] = []
    try:
        with _without_cyclic_collection():
            nesting.on_deep_stack(lambda: handed.append(_parse_and_report(source, text, filename, rules, settings, enabled)))
            return handed.pop()
    except cst.ParserSyntaxError as error:
        return _unlintable(unparsable(text, filename, error, max(error.raw_line, 1), error.raw_column + 1))
    except cst.CSTValidationError as error:  # e.g. a bare `except:` that is not the last handler
        return _unlintable(unparsable(text, filename, error))
    except (RecursionError, MemoryError) as error:
        return _unlintable(problem(filename, TOO_DEEP_TO_ANALYSE.format(reason=str(error) or type(error).__name__)))


@contextlib.contextmanager
def _without_cyclic_collection() -> Iterator[None]:
    """Python's cycle collector off while one file is parsed and walked.

    A syntax tree is hundreds of thousands of small objects without reference cycles, so
    reference counting frees it; but while it grows, the collector walks it again and again
    (a sixth of a cold lint's CPU time on timm). What cycles a file leaves are collected
    after it, when the collector is back on."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _analyse(
    source: bytes, filename: str, rules: Sequence[type[Rule]], settings: LintSettings | None, *, summarise: bool = False
) -> _Analysis:
    """Findings, tree, positions and export summary of one file; with ``summarise`` the
    file is parsed for its summary even when no rule needs it."""
    text = decode_or_problem(source, filename)
    if isinstance(text, Diagnostic):
        return _unlintable(text)
    active = _rules_for(text, rules, settings or LintSettings())
    summarise = summarise or (not active and offers_more_than_imports(text))
    if skips_file(text):
        return [], None, None, _imports_only(source, text, settings)
    if not active and not summarise:
        return _unparsed(source, text, filename, settings)  # cheap text checks first: most files are never parsed
    refusal = _python_refuses(source, text, filename)
    if refusal is not None:
        return _unlintable(refusal)
    return _with_libcst(source, text, filename, active, settings, frozenset(rule.code for rule in rules))


def _unparsed(source: bytes, text: str, filename: str, settings: LintSettings | None) -> _Analysis:
    """A file no enabled rule parses: Python's parser reads its imports, and a file it
    refuses is TCK000 as if a rule had parsed it (asked again only when that read failed)."""
    exports = _imports_only(source, text, settings)
    if exports is None:
        refusal = nesting.on_deep_stack(python_refusal, text, filename)
        if refusal is not None:
            return _unlintable(refusal)
    return [], None, None, exports


def _imports_only(source: bytes, text: str, settings: LintSettings | None) -> ExportSummary | None:
    """What a file no enabled rule parses offers the project (its re-exports), if Python's
    own parser can read it without risk."""
    stars = settings.star_imports if settings is not None else ()
    return None if nesting.may_be_too_deep(source) else imports_summary(text, stars)


def lint_source(source: bytes, filename: str, rules: Sequence[type[Rule]], settings: LintSettings | None = None) -> FileResult:
    """All findings for one file's bytes; never raises for bad input.

    Findings that depend on a definition further down the same file are decided here; those
    that depend on other files come back as ``deferred``, with the file's ``exports``.
    """
    if not source.strip():
        return FileResult((), exports=imports_summary(""))
    # The collector stays off until the tree is freed: switched on while the tree is alive,
    # its next pass would walk every node of it once more.
    with _without_cyclic_collection():
        immediate, waiting, exports = _findings(source, filename, rules, settings)
    standing, deferred = settle_locally(filename, exports, waiting)
    diagnostics = sorted((*immediate, *standing), key=lambda diagnostic: diagnostic.sort_key)
    return FileResult(tuple(diagnostics), deferred=tuple(deferred), exports=exports)


def _findings(
    source: bytes, filename: str, rules: Sequence[type[Rule]], settings: LintSettings | None
) -> tuple[list[Diagnostic], list[DeferredFinding], ExportSummary | None]:
    """The file's findings that stand alone, those that wait for facts, and its exports;
    nothing of its tree outlives this call."""
    pairs, _, _, exports = _analyse(source, filename, rules, settings)
    immediate = [diagnostic for diagnostic, report in pairs if report is None or not report.conditions]
    waiting = [DeferredFinding(diagnostic, report.conditions) for diagnostic, report in pairs if report is not None and report.conditions]
    return immediate, waiting, exports


def export_summary(source: bytes, filename: str, settings: LintSettings | None = None) -> ExportSummary | None:
    """What a file offers the project, without linting it (a module that a linted file
    imports but the run does not lint); None when it cannot be parsed."""
    return _analyse(source, filename, (), settings, summarise=True)[3]


def _applicable(report: Report, unsafe: bool) -> bool:
    if report.replacement is None or report.conditions:
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
        target = located.range_of(report.replace_target, report.top_level)
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


def _rewritten(module: cst.Module, chosen: list[Report], source: bytes) -> bytes | None:
    """The file with the chosen replacements made; None if it would not parse. Runs on a deep stack."""
    with nesting.deep_recursion():
        rewritten = module.visit(_ReplaceNodes({r.replace_target: r.replacement for r in chosen}))  # type: ignore[misc]
        candidate = rewritten_bytes(source, module, rewritten)
        try:
            parse_module(candidate)
        except (cst.ParserSyntaxError, cst.CSTValidationError):
            return None
        return candidate


def _digest(source: bytes) -> bytes:
    return hashlib.blake2b(source, digest_size=16).digest()


def fix_source(
    source: bytes,
    filename: str,
    rules: Sequence[type[Rule]],
    *,
    unsafe: bool = False,
    settings: LintSettings | None = None,
    fix_allowed: Callable[[bytes, Fix], bool] | None = None,
) -> FileResult:
    """Apply fixes until none is left and lint the result: a second run changes nothing.

    Fixes nested in one another are made one level per pass, up to ``MAX_FIX_PASSES``
    passes; fixes that would bring back a text already seen stop the passes (two fixes
    undoing each other). What is left is reported with the final findings. Every
    intermediate result is re-parsed; a fix that would produce unparsable code is dropped
    along with everything after it, so the file on disk is never broken. ``fix_allowed``
    (asked with the text being fixed) keeps the fixes its caller could not write back.
    """
    current, applied = source, 0
    seen = {_digest(source)}
    for _ in range(MAX_FIX_PASSES):
        pairs, module, located, _ = _analyse(current, filename, rules, settings)
        fixable = [
            report
            for diagnostic, report in pairs
            if report is not None
            and _applicable(report, unsafe)
            and (fix_allowed is None or (diagnostic.fix is not None and fix_allowed(current, diagnostic.fix)))
        ]
        if module is None or located is None or not fixable:
            break
        chosen = _non_overlapping(fixable, located)
        try:
            candidate = nesting.on_deep_stack(_rewritten, module, chosen, current)
        except (RecursionError, MemoryError):
            break
        if candidate is None or _digest(candidate) in seen:
            break
        seen.add(_digest(candidate))
        current, applied = candidate, applied + len(chosen)
    final = lint_source(current, filename, rules, settings)
    noqa_fixes = [d.fix for d in final.diagnostics if d.code == noqa.UNUSED_NOQA_CODE and d.fix is not None]
    if noqa_fixes:  # text edits, made once the other fixes are in (they never touch a noqa comment)
        current = noqa.apply_edits(current, [edit for fix in noqa_fixes for edit in fix.edits])
        applied += len(noqa_fixes)
        final = lint_source(current, filename, rules, settings)
    return FileResult(final.diagnostics, current if current != source else None, applied, final.deferred, final.exports)
