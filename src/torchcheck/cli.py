"""``torchcheck`` command line: parses options, calls the linter, chooses output and exit code.

Exit codes: 0 no findings, 1 findings, 2 usage or configuration error.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import torchcheck

if TYPE_CHECKING:
    from torchcheck.lint.api import LintResult

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2

_SELECTOR_HELP = "comma-separated rule codes, code prefixes (TCK1), rule names, or ALL"
_DESCRIPTION = "Catch PyTorch correctness mistakes before they cost a training run."


def _selectors(value: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in value.split(",") if part.strip())


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="torchcheck", description=_DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"torchcheck {torchcheck.__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    lint = commands.add_parser("lint", help="lint Python files for PyTorch mistakes")
    lint.add_argument("paths", nargs="*", type=Path, default=[Path(".")], help="files or directories (default: .)")
    lint.add_argument("--select", type=_selectors, help=f"rules to enable instead of the defaults: {_SELECTOR_HELP}")
    lint.add_argument("--extend-select", type=_selectors, default=(), help=f"rules to enable in addition: {_SELECTOR_HELP}")
    lint.add_argument("--ignore", type=_selectors, default=(), help=f"rules to disable: {_SELECTOR_HELP}")
    from torchcheck.lint.formats import FORMAT_NAMES

    lint.add_argument("--output-format", choices=FORMAT_NAMES, default="full", help="how to print findings (default: full)")
    lint.add_argument("--fix", action="store_true", help="apply safe fixes in place")
    lint.add_argument("--unsafe-fixes", action="store_true", help="with --fix or --diff, also apply unsafe fixes")
    lint.add_argument("--diff", action="store_true", help="print fixes as a unified diff and write nothing")
    lint.add_argument("--statistics", action="store_true", help="print the number of findings per rule")
    lint.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    lint.add_argument("--no-cache", action="store_true", help="neither read nor write .torchcheck_cache/")
    lint.add_argument("--config", type=Path, help="read settings from this pyproject.toml-style file")
    lint.add_argument("--target-version", help="oldest PyTorch version the code supports, e.g. 2.1 (overrides config)")
    lint.add_argument("--quiet", "-q", action="store_true", help="print findings only, no summary")
    lint.add_argument("--jobs", "-j", type=int, help="worker processes (default: one per CPU)")

    commands.add_parser("rules", help="list every rule: code, name, default, fix")
    rule = commands.add_parser("rule", help="print one rule's documentation")
    rule.add_argument("rule", help="a rule code (TCK101) or name (loss-kept-with-graph)")
    return parser


def _colour(stream: object) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return bool(getattr(stream, "isatty", lambda: False)())


def _summary(result: LintResult, options: argparse.Namespace) -> str:
    diagnostics = result.diagnostics
    lines = []
    if result.fixes_applied and not options.diff:
        lines.append(f"Fixed {result.fixes_applied} finding(s) in {len(result.fixed_files)} file(s).")
    if not diagnostics:
        lines.append(f"All checks passed ({result.files_checked} file(s) checked).")
        return "\n".join(lines) + "\n"
    safe = sum(1 for d in diagnostics if d.fix is not None and d.fix.applicability == "safe")
    unsafe = sum(1 for d in diagnostics if d.fix is not None and d.fix.applicability == "unsafe")
    lines.append(f"Found {len(diagnostics)} finding(s) in {result.files_checked} file(s) checked.")
    if safe:
        lines.append(f"[*] {safe} fixable with `torchcheck lint --fix`.")
    if unsafe and not options.unsafe_fixes:
        lines.append(f"{unsafe} more fixable with `--fix --unsafe-fixes`.")
    return "\n".join(lines) + "\n"


def _run_lint(options: argparse.Namespace) -> int:
    from torchcheck.lint import api, formats

    lint_options = api.LintOptions(
        paths=tuple(options.paths),
        select=options.select,
        extend_select=options.extend_select,
        ignore=options.ignore,
        config_file=options.config,
        fix=options.fix,
        unsafe_fixes=options.unsafe_fixes,
        diff=options.diff,
        use_cache=not options.no_cache,
        jobs=options.jobs,
        target_version=options.target_version,
    )
    result = api.lint(lint_options)
    out = sys.stdout
    if options.diff:
        out.write(result.diff)
        return EXIT_FINDINGS if result.diff and not options.exit_zero else EXIT_CLEAN
    if options.output_format == "sarif":
        out.write(formats.format_sarif(result.diagnostics, result.rules))
    else:
        out.write(formats.TEXT_FORMATS[options.output_format](result.diagnostics, _colour(out)))
    human = options.output_format in ("full", "concise")
    if options.statistics:
        out.write(formats.format_statistics(result.diagnostics))
    if human and not options.quiet:
        if result.diagnostics and options.output_format == "full":
            out.write("\n")
        out.write(_summary(result, options))
    return EXIT_FINDINGS if result.diagnostics and not options.exit_zero else EXIT_CLEAN


def _run_rules() -> int:
    from torchcheck.lint.registry import all_rules

    rows = [("CODE", "NAME", "DEFAULT", "FIX")]
    for rule in all_rules():
        fix = rule.fix_safety.value if rule.has_fix() else "none"
        rows.append((rule.code, rule.name, "on" if rule.default_enabled else "opt-in", fix))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    for row in rows:
        sys.stdout.write(f"{row[0]:<{widths[0]}}  {row[1]:<{widths[1]}}  {row[2]:<{widths[2]}}  {row[3]}\n")
    return EXIT_CLEAN


def _run_rule(selector: str) -> int:
    from torchcheck.lint.docs import render_rule_page
    from torchcheck.lint.registry import rule_by_selector

    rule = rule_by_selector(selector)
    if rule is None:
        sys.stderr.write(f"torchcheck: error: no rule has the code or name {selector!r} (see `torchcheck rules`)\n")
        return EXIT_USAGE
    sys.stdout.write(render_rule_page(rule, banner=False))
    return EXIT_CLEAN


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    options = parser.parse_args(argv)
    if options.command is None:
        parser.print_help()
        return EXIT_USAGE
    from torchcheck.config import ConfigError

    try:
        if options.command == "lint":
            return _run_lint(options)
        if options.command == "rules":
            return _run_rules()
        return _run_rule(options.rule)
    except ConfigError as error:
        sys.stderr.write(f"torchcheck: error: {error}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
