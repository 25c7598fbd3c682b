"""``torchcheck`` command line: parses options, calls the linter, chooses output and exit code.

Exit codes: 0 no findings, 1 findings, 2 usage or configuration error, or an internal
error (so CI can tell a tool failure from results).

Start-up matters (pre-commit runs this for every commit): building the parser, ``--help``,
``--version``, ``rules``, ``rule`` and a fully cached run import neither libcst nor the rules.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import torchcheck

if TYPE_CHECKING:
    from torchcheck.lint.api import LintOptions, LintResult

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
EXIT_USAGE = EXIT_ERROR
EXIT_INTERRUPTED = 130

# The formats are listed here, not imported, so that building the parser stays cheap;
# a test checks they match torchcheck.lint.formats.FORMAT_NAMES.
OUTPUT_FORMATS = ("full", "concise", "json", "sarif", "github")
_SELECTOR_HELP = "comma-separated rule codes, code prefixes (TCK1), rule names, or ALL"
_PATTERN_HELP = "comma-separated glob patterns"
_DESCRIPTION = "Catch PyTorch correctness mistakes before they cost a training run."
_INTERNAL_ERROR = (
    "torchcheck: internal error: {error}\n"
    "This is a bug in torchcheck, not in your code; please report it with the traceback above.\n"
)


def _comma_separated(value: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in value.split(",") if part.strip())


def _add_selection_options(lint: argparse.ArgumentParser) -> None:
    group = lint.add_argument_group("rule selection")
    group.add_argument("--select", type=_comma_separated, help=f"rules to enable instead of the defaults: {_SELECTOR_HELP}")
    group.add_argument("--extend-select", type=_comma_separated, default=(), help=f"rules to enable in addition: {_SELECTOR_HELP}")
    group.add_argument("--ignore", type=_comma_separated, default=(), help=f"rules to disable: {_SELECTOR_HELP}")
    group.add_argument("--target-version", help="oldest PyTorch version the code supports, e.g. 2.1 (overrides config)")


def _add_file_options(lint: argparse.ArgumentParser) -> None:
    group = lint.add_argument_group("file selection")
    group.add_argument("--exclude", type=_comma_separated, help=f"files and directories to skip, replacing the configured exclude: {_PATTERN_HELP}")
    group.add_argument("--extend-exclude", type=_comma_separated, default=(), help=f"files and directories to skip in addition: {_PATTERN_HELP}")
    group.add_argument(
        "--force-exclude",
        action="store_true",
        help="apply exclude, extend-exclude and per-file-ignores also to files named on the command line (use it in pre-commit)",
    )
    group.add_argument("--stdin-filename", type=Path, help="with the path `-`: lint standard input as this file (its config and excludes apply)")
    group.add_argument("--config", type=Path, help="read settings from this pyproject.toml-style file (it must have a [tool.torchcheck] table)")
    group.add_argument("--no-cache", action="store_true", help="neither read nor write .torchcheck_cache/")
    group.add_argument("--jobs", "-j", type=int, help="worker processes (default: one per CPU)")


def _add_fix_options(lint: argparse.ArgumentParser) -> None:
    group = lint.add_argument_group("fixes")
    group.add_argument("--fix", action="store_true", help="apply safe fixes in place (with stdin input: print the fixed source)")
    group.add_argument("--unsafe-fixes", action="store_true", help="with --fix or --diff, also apply unsafe fixes")
    group.add_argument("--diff", action="store_true", help="print fixes as a unified diff (`git apply` accepts it) and write nothing")
    group.add_argument("--add-noqa", action="store_true", help="add `# noqa: TCKnnn` to every line with a finding (to adopt torchcheck in a large codebase)")


def _add_output_options(lint: argparse.ArgumentParser) -> None:
    group = lint.add_argument_group("output")
    group.add_argument("--output-format", choices=OUTPUT_FORMATS, default="full", help="how to print findings (default: full)")
    group.add_argument("--output-file", "-o", type=Path, help="write the findings to this file instead of standard output")
    group.add_argument("--statistics", action="store_true", help="print the number of findings per rule instead of the findings")
    group.add_argument("--show-files", action="store_true", help="print the files that would be linted, and lint nothing")
    group.add_argument("--show-settings", action="store_true", help="print the settings that apply to the first path, and lint nothing")
    group.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    group.add_argument("--exit-non-zero-on-fix", action="store_true", help="exit 1 when --fix changed a file, even if no finding is left")
    group.add_argument("--quiet", "-q", action="store_true", help="print findings only, no summary")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="torchcheck", description=_DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"torchcheck {torchcheck.__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    lint = commands.add_parser("lint", help="lint Python files for PyTorch mistakes")
    lint.add_argument("paths", nargs="*", type=Path, default=[Path(".")], help="files or directories (default: .); `-` reads standard input")
    _add_selection_options(lint)
    _add_file_options(lint)
    _add_fix_options(lint)
    _add_output_options(lint)
    commands.add_parser("rules", help="list every rule: code, name, default, fix")
    rule = commands.add_parser("rule", help="print one rule's documentation")
    rule.add_argument("rule", help="a rule code (TCK101) or name (loss-kept-with-graph)")
    commands.add_parser("server", help="run the language server for editors on stdin/stdout (needs the server extra)")
    return parser


# ----------------------------------------------------------------------------- lint


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
    if result.noqa_added:
        lines.append(f"Added {result.noqa_added} noqa directive(s).")
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


def _reading_stdin(options: argparse.Namespace) -> bool:
    return [str(path) for path in options.paths] == ["-"]


def _lint_options(options: argparse.Namespace) -> LintOptions:
    from torchcheck.lint.api import LintOptions

    stdin = _reading_stdin(options)
    if stdin and options.stdin_filename is None:
        options.stdin_filename = Path("stdin.py")
    return LintOptions(
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
        exclude=options.exclude,
        extend_exclude=options.extend_exclude,
        force_exclude=options.force_exclude,
        add_noqa=options.add_noqa,
        stdin_filename=options.stdin_filename if stdin else None,
        stdin_source=sys.stdin.buffer.read() if stdin else None,
    )


def _findings_text(result: LintResult, options: argparse.Namespace, stream: TextIO) -> str:
    from torchcheck.lint import formats

    if options.output_format == "sarif":
        return formats.format_sarif(result.diagnostics, result.rules)
    return formats.TEXT_FORMATS[options.output_format](result.diagnostics, _colour(stream))


def _write_findings(result: LintResult, options: argparse.Namespace, stream: TextIO) -> None:
    from torchcheck.lint import formats

    human = options.output_format in ("full", "concise")
    if options.statistics:
        statistics = formats.format_statistics(result.diagnostics, options.output_format)
        if options.output_format in ("sarif", "github"):
            stream.write(_findings_text(result, options, stream))  # the document stays valid
            sys.stderr.write(statistics)
        else:
            stream.write(statistics)
    else:
        stream.write(_findings_text(result, options, stream))
    if human and not options.quiet:
        if result.diagnostics and options.output_format == "full" and not options.statistics:
            stream.write("\n")
        stream.write(_summary(result, options))


def _exit_code(result: LintResult, options: argparse.Namespace) -> int:
    if result.write_errors:
        return EXIT_ERROR
    if options.exit_non_zero_on_fix and (result.fixed_files or result.fixed_stdin is not None):
        return EXIT_FINDINGS
    return EXIT_FINDINGS if result.diagnostics and not options.exit_zero else EXIT_CLEAN


def _open_output(options: argparse.Namespace) -> TextIO:
    if options.output_file is None:
        return sys.stdout
    return options.output_file.open("w", encoding="utf-8", errors="backslashreplace", newline="")


def _run_lint(options: argparse.Namespace) -> int:
    from torchcheck.lint import api

    lint_options = _lint_options(options)
    if options.show_files:
        sys.stdout.writelines(f"{name}\n" for name in api.files_to_lint(lint_options))
        return EXIT_CLEAN
    if options.show_settings:
        sys.stdout.write(api.describe_settings(lint_options))
        return EXIT_CLEAN
    result = api.lint(lint_options)
    for problem in result.write_errors:
        sys.stderr.write(f"torchcheck: error: {problem}\n")
    if options.diff:
        sys.stdout.flush()
        sys.stdout.buffer.write(result.diff)
        sys.stdout.buffer.flush()
        return EXIT_FINDINGS if result.diff and not options.exit_zero else EXIT_CLEAN
    if result.fixed_stdin is not None:
        sys.stdout.flush()
        sys.stdout.buffer.write(result.fixed_stdin)
        sys.stdout.buffer.flush()
        _write_findings(result, options, sys.stderr)  # stdout holds the source
        return _exit_code(result, options)
    stream = _open_output(options)
    try:
        _write_findings(result, options, stream)
    finally:
        if stream is not sys.stdout:
            stream.close()
    return _exit_code(result, options)


# ----------------------------------------------------------------------------- rules


def _run_rules() -> int:
    from torchcheck.lint.catalogue import rule_infos

    rows = [("CODE", "NAME", "DEFAULT", "FIX")]
    rows += [(rule.code, rule.name, "on" if rule.default_enabled else "opt-in", rule.fix) for rule in rule_infos()]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    for row in rows:
        sys.stdout.write(f"{row[0]:<{widths[0]}}  {row[1]:<{widths[1]}}  {row[2]:<{widths[2]}}  {row[3]}\n")
    return EXIT_CLEAN


def _run_rule(selector: str) -> int:
    from torchcheck.lint.catalogue import render_rule_page
    from torchcheck.lint.registry import info_by_selector

    rule = info_by_selector(selector)
    if rule is None:
        sys.stderr.write(f"torchcheck: error: no rule has the code or name {selector!r} (see `torchcheck rules`)\n")
        return EXIT_USAGE
    sys.stdout.write(render_rule_page(rule, banner=False))
    return EXIT_CLEAN


# ----------------------------------------------------------------------------- main


def _dispatch(options: argparse.Namespace) -> int:
    if options.command == "lint":
        return _run_lint(options)
    if options.command == "rules":
        return _run_rules()
    if options.command == "server":
        from torchcheck.server import serve

        return serve()
    return _run_rule(options.rule)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    options = parser.parse_args(argv)
    if options.command is None:
        parser.print_help()
        return EXIT_USAGE
    # File names that are not valid UTF-8 reach us as surrogate escapes: print them escaped.
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    try:
        return _dispatch(options)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_CLEAN
    except Exception as error:  # noqa: BLE001 - a bug must not look like findings (exit 1)
        if _is_user_error(error):
            sys.stderr.write(f"torchcheck: error: {error}\n")
            return EXIT_USAGE
        traceback.print_exc()
        sys.stderr.write(_INTERNAL_ERROR.format(error=f"{type(error).__name__}: {error}"))
        return EXIT_ERROR


def _is_user_error(error: Exception) -> bool:
    """A bad setting or an impossible request: a message, never a traceback. (Imported here,
    not at the top, so that commands that parse nothing stay cheap.)"""
    from torchcheck.config import ConfigError
    from torchcheck.lint.api import UsageError

    return isinstance(error, (ConfigError, UsageError))
