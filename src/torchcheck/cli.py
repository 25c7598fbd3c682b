"""``torchcheck`` command line: parses options, calls the linter, chooses output and exit code.

Exit codes: 0 no findings, 1 findings, 2 usage or configuration error, or an internal
error (so CI can tell a tool failure from results).

Start-up matters (pre-commit runs this for every commit): building the parser, ``--help``,
``--version``, ``rules``, ``rule`` and a fully cached run import neither libcst nor the rules.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import traceback
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import torchcheck
from torchcheck import golden_review, server  # server: its options only, pygls is imported when it starts

if TYPE_CHECKING:
    from torchcheck.lint.api import LintOptions, LintResult

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
EXIT_USAGE = EXIT_ERROR
EXIT_INTERRUPTED = 130
INTERRUPTED = "torchcheck: interrupted\n"
CANNOT_WRITE = "cannot write {target}: {reason}"
STANDARD_OUTPUT = "to standard output"
STANDARD_OUTPUT_CLOSED = "it is closed"

# The formats are listed here, not imported, so that building the parser stays cheap;
# a test checks they match torchcheck.lint.formats.FORMAT_NAMES.
OUTPUT_FORMATS = ("full", "concise", "json", "sarif", "github")
RULES_FORMATS = ("text", "json")
_SELECTOR_HELP = "comma-separated rule codes, code prefixes (TCK1), rule names, or ALL; repeatable"
_PATTERN_HELP = "comma-separated glob patterns; repeatable"
_SELECTION_EPILOG = (
    "Rule selection, as in ruff: the configuration's select, extend-select and ignore apply "
    "first, then the command line's. A command-line --select overrides the configured select, "
    "extend-select and ignore (per-file-ignores still apply); without it, --extend-select adds "
    "rules (even configured-ignored ones) and --ignore removes rules. Within one layer the more "
    "specific selector wins (TCK101 over TCK1 over ALL). Inline --config \"KEY = VALUE\" "
    "settings override the same keys of the configuration file."
)
_DESCRIPTION = "Catch PyTorch correctness mistakes before they cost a training run."
_INTERNAL_ERROR = (
    "torchcheck: internal error: {error}\n"
    "This is a bug in torchcheck, not in your code; please report it with the traceback above.\n"
)


def _comma_separated(value: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in value.split(",") if part.strip())


def _listed(values: list[str] | None) -> tuple[str, ...]:
    """A repeatable comma-separated option's values, in order (none given: empty)."""
    return tuple(values or ())


def _add_selection_options(lint: argparse.ArgumentParser) -> None:
    group = lint.add_argument_group("rule selection")
    group.add_argument(
        "--select",
        type=_comma_separated,
        action="extend",
        help=f"rules to enable instead of the defaults; overrides the configured select, extend-select and ignore: {_SELECTOR_HELP}",
    )
    group.add_argument("--extend-select", type=_comma_separated, action="extend", help=f"rules to enable in addition: {_SELECTOR_HELP}")
    group.add_argument("--ignore", type=_comma_separated, action="extend", help=f"rules to disable: {_SELECTOR_HELP}")
    group.add_argument("--target-version", help="oldest PyTorch version the code supports, e.g. 2.1 (overrides config)")


def _add_file_options(lint: argparse.ArgumentParser) -> None:
    group = lint.add_argument_group("file selection")
    replacing = "files and directories to skip, replacing the configured exclude"
    group.add_argument("--exclude", type=_comma_separated, action="extend", help=f"{replacing}: {_PATTERN_HELP}")
    adding = "files and directories to skip in addition"
    group.add_argument("--extend-exclude", type=_comma_separated, action="extend", help=f"{adding}: {_PATTERN_HELP}")
    group.add_argument(
        "--force-exclude",
        action="store_true",
        help="apply exclude, extend-exclude and per-file-ignores also to files named on the command line (use it in pre-commit)",
    )
    group.add_argument(
        "--stdin-filename",
        type=Path,
        help="lint standard input as this file (its config and excludes apply); paths other than `-` are ignored",
    )
    group.add_argument(
        "--config",
        action="append",
        metavar="CONFIG_OPTION",
        help="a pyproject.toml-style file to read settings from (it must have a [tool.torchcheck] table), or one "
        "setting in TOML that overrides the file's, e.g. --config \"ignore = ['TCK105']\"; repeatable (one file at most)",
    )
    group.add_argument("--no-cache", action="store_true", help="neither read nor write .torchcheck_cache/")
    group.add_argument("--jobs", "-j", type=int, help="worker processes, 1 to 1024 (default: one per CPU; never more than the CPUs or the files)")


def _add_fix_options(lint: argparse.ArgumentParser) -> None:
    group = lint.add_argument_group("fixes")
    group.add_argument("--fix", action="store_true", help="apply safe fixes in place (with stdin input: print the fixed source)")
    group.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="with --fix or --diff, also apply unsafe fixes; alone, mark the findings they would fix with [*]",
    )
    group.add_argument("--diff", action="store_true", help="print fixes as a unified diff (`git apply` accepts it) and write nothing")
    group.add_argument("--add-noqa", action="store_true", help="add `# noqa: TCKnnn` to every line with a finding (to adopt torchcheck in a large codebase)")


def _add_output_options(lint: argparse.ArgumentParser) -> None:
    group = lint.add_argument_group("output")
    group.add_argument("--output-format", choices=OUTPUT_FORMATS, default="full", help="how to print findings (default: full)")
    group.add_argument("--output-file", "-o", type=Path, help="write the findings to this file instead of standard output")
    group.add_argument(
        "--statistics",
        action="store_true",
        help="print the number of findings per rule instead of the findings (a JSON array with the json and sarif formats)",
    )
    group.add_argument("--show-files", action="store_true", help="print the files that would be linted, and lint nothing")
    group.add_argument("--show-settings", action="store_true", help="print the settings that apply to the first path, and lint nothing")
    group.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    group.add_argument("--exit-non-zero-on-fix", action="store_true", help="exit 1 when --fix changed a file, even if no finding is left")
    group.add_argument("--quiet", "-q", action="store_true", help="print findings only, no summary")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="torchcheck", description=_DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"torchcheck {torchcheck.__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    lint = commands.add_parser("lint", help="lint Python files for PyTorch mistakes", epilog=_SELECTION_EPILOG)
    lint.add_argument("paths", nargs="*", type=Path, help="files or directories (default: .); `-` reads standard input")
    _add_selection_options(lint)
    _add_file_options(lint)
    _add_fix_options(lint)
    _add_output_options(lint)
    rules = commands.add_parser("rules", help="list every rule: code, name, default, fix")
    rules.add_argument(
        "--output-format",
        choices=RULES_FORMATS,
        default="text",
        help="a table, or JSON like `ruff rule --all --output-format json` (default: text)",
    )
    rule = commands.add_parser("rule", help="print one rule's documentation")
    rule.add_argument("rule", help="a rule code (TCK101) or name (loss-kept-with-graph)")
    server.add_arguments(commands.add_parser("server", help="run the language server for editors on stdin/stdout (needs the server extra)"))
    golden_review.add_arguments(commands.add_parser("golden", help="review or list golden training curves (reads JSON only)"))
    return parser


# ----------------------------------------------------------------------------- lint


def _colour(stream: object) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return bool(getattr(stream, "isatty", lambda: False)())


def _count(number: int, noun: str) -> str:
    """``1 finding``, ``2 findings``; nouns ending in s, x or h take -es (``2 fixes``)."""
    plural = noun + ("es" if noun.endswith(("s", "x", "h")) else "s")
    return f"{number} {noun if number == 1 else plural}"


def _fix_hint(result: LintResult, options: argparse.Namespace) -> str | None:
    """ruff's line about fixes: how many ``--fix`` would apply, and how many unsafe fixes
    ``--unsafe-fixes`` would add (with it, they count as fixable)."""
    diagnostics = result.diagnostics
    safe = sum(1 for d in diagnostics if d.fix is not None and d.fix.applicability == "safe")
    unsafe = sum(1 for d in diagnostics if d.fix is not None and d.fix.applicability == "unsafe")
    if options.unsafe_fixes:
        return f"[*] {safe + unsafe} fixable with `torchcheck lint --fix --unsafe-fixes`." if safe + unsafe else None
    hidden = f"{_count(unsafe, 'hidden fix')} can be enabled with the `--unsafe-fixes` option"
    if safe and unsafe:
        return f"[*] {safe} fixable with `torchcheck lint --fix` ({hidden})."
    if safe:
        return f"[*] {safe} fixable with `torchcheck lint --fix`."
    return f"No fixes available ({hidden})." if unsafe else None


def _summary(result: LintResult, options: argparse.Namespace) -> str:
    diagnostics = result.diagnostics
    lines = []
    if result.fixes_applied and not options.diff:
        where = "" if result.fixed_stdin is not None else f" in {_count(len(result.fixed_files), 'file')}"
        lines.append(f"Fixed {_count(result.fixes_applied, 'finding')}{where}.")
    if result.noqa_added:
        lines.append(f"Added {_count(result.noqa_added, 'noqa directive')}.")
    if not diagnostics:
        lines.append(f"All checks passed ({_count(result.files_checked, 'file')} checked).")
        return "\n".join(lines) + "\n"
    lines.append(f"Found {_count(len(diagnostics), 'finding')} in {_count(result.files_checked, 'file')} checked.")
    hint = _fix_hint(result, options)
    if hint is not None:
        lines.append(hint)
    return "\n".join(lines) + "\n"


def _reading_stdin(options: argparse.Namespace) -> bool:
    """As in ruff: standard input is read when ``--stdin-filename`` is given or the only path is ``-``."""
    return options.stdin_filename is not None or [str(path) for path in options.paths or ()] == ["-"]


def _warn_about_ignored_paths(options: argparse.Namespace) -> None:
    for path in options.paths or ():
        if str(path) != "-":
            sys.stderr.write(f"torchcheck: warning: Ignoring file {path} in favor of standard input.\n")


def _lint_options(options: argparse.Namespace) -> LintOptions:
    from torchcheck.config import split_config_arguments
    from torchcheck.lint.api import LintOptions

    stdin = _reading_stdin(options)
    if stdin:
        _warn_about_ignored_paths(options)
        options.stdin_filename = options.stdin_filename or Path("stdin.py")
    config_file, config_overrides = split_config_arguments(options.config or ())
    return LintOptions(
        paths=tuple(options.paths or (Path("."),)),
        select=_listed(options.select) if options.select is not None else None,
        extend_select=_listed(options.extend_select),
        ignore=_listed(options.ignore),
        config_file=config_file,
        config_overrides=config_overrides,
        fix=options.fix,
        unsafe_fixes=options.unsafe_fixes,
        diff=options.diff,
        use_cache=not options.no_cache,
        jobs=options.jobs,
        target_version=options.target_version,
        exclude=_listed(options.exclude) if options.exclude is not None else None,
        extend_exclude=_listed(options.extend_exclude),
        force_exclude=options.force_exclude,
        add_noqa=options.add_noqa,
        stdin_filename=options.stdin_filename if stdin else None,
        stdin_source=sys.stdin.buffer.read() if stdin and not (options.show_files or options.show_settings) else None,
    )


def _findings_text(result: LintResult, options: argparse.Namespace, stream: TextIO) -> str:
    from torchcheck.lint import formats

    if options.output_format == "sarif":
        return formats.format_sarif(result.diagnostics, result.rules)
    if options.output_format == "full":
        return formats.format_full(result.diagnostics, _colour(stream), unsafe_fixes=options.unsafe_fixes)
    if options.output_format == "concise":
        return formats.format_concise(result.diagnostics, _colour(stream), unsafe_fixes=options.unsafe_fixes)
    return formats.TEXT_FORMATS[options.output_format](result.diagnostics, _colour(stream))


def _write_findings(result: LintResult, options: argparse.Namespace, stream: TextIO) -> None:
    from torchcheck.lint import formats

    human = options.output_format in ("full", "concise")
    if options.statistics:
        stream.write(formats.format_statistics(result.diagnostics, options.output_format, unsafe_fixes=options.unsafe_fixes))
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


class OutputError(Exception):
    """The output cannot be written (a missing directory, a full disk): a usage error."""


@contextlib.contextmanager
def _writing(target: str = STANDARD_OUTPUT) -> Iterator[None]:
    """Turns a failed write to ``target`` into an :class:`OutputError`; standard output is
    flushed here, so that its errors are not left for the interpreter's exit. A reader that
    went away (BrokenPipeError) is not an error: :func:`main` ends quietly."""
    if target == STANDARD_OUTPUT and sys.stdout is None:  # started with its descriptor closed
        raise OutputError(CANNOT_WRITE.format(target=target, reason=STANDARD_OUTPUT_CLOSED))
    try:
        yield
        if target == STANDARD_OUTPUT:
            sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as error:
        raise OutputError(CANNOT_WRITE.format(target=target, reason=error.strerror or error)) from None


def _output_target(options: argparse.Namespace) -> str:
    return STANDARD_OUTPUT if options.output_file is None else f"the findings to {options.output_file}"


def _open_output(options: argparse.Namespace) -> TextIO:
    if options.output_file is None:
        return sys.stdout
    return options.output_file.open("w", encoding="utf-8", errors="backslashreplace", newline="")


def _run_lint(options: argparse.Namespace) -> int:
    from torchcheck.lint import api

    lint_options = _lint_options(options)
    if options.show_files:
        names = api.files_to_lint(lint_options)
        with _writing():
            sys.stdout.writelines(f"{name}\n" for name in names)
        return EXIT_CLEAN
    if options.show_settings:
        settings = api.describe_settings(lint_options)
        with _writing():
            sys.stdout.write(settings)
        return EXIT_CLEAN
    result = api.lint(lint_options)
    for problem in result.write_errors:
        sys.stderr.write(f"torchcheck: error: {problem}\n")
    if options.diff:
        with _writing():
            sys.stdout.flush()
            sys.stdout.buffer.write(result.diff)
            sys.stdout.buffer.flush()
        return EXIT_FINDINGS if result.diff and not options.exit_zero else EXIT_CLEAN
    if result.fixed_stdin is not None:
        with _writing():
            sys.stdout.flush()
            sys.stdout.buffer.write(result.fixed_stdin)
            sys.stdout.buffer.flush()
        _write_findings(result, options, sys.stderr)  # stdout holds the source
        return _exit_code(result, options)
    with _writing(_output_target(options)):
        stream = _open_output(options)
        try:
            _write_findings(result, options, stream)
        finally:
            if stream is not sys.stdout:
                stream.close()
    return _exit_code(result, options)


# ----------------------------------------------------------------------------- rules


def _rules_json() -> str:
    from torchcheck.lint.catalogue import rule_infos
    from torchcheck.lint.diagnostic import DOCS_URL

    rules = [
        {
            "code": rule.code,
            "name": rule.name,
            "linter": rule.family,
            "summary": " ".join(rule.summary.split()),  # one line, as ruff's
            "message": rule.message,
            "default": "on" if rule.default_enabled else "opt-in",
            "fix": rule.fix,
            "fix_title": rule.fix_title,
            "explanation": rule.documentation,
            "url": DOCS_URL.format(code=rule.code),
        }
        for rule in rule_infos()
    ]
    return json.dumps(rules, indent=2) + "\n"


def _run_rules(output_format: str = "text") -> int:
    from torchcheck.lint.catalogue import rule_infos

    if output_format == "json":
        sys.stdout.write(_rules_json())
        return EXIT_CLEAN
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
        return _run_rules(options.output_format)
    if options.command == "server":
        return server.serve(options)
    if options.command == "golden":
        return golden_review.run(options, sys.stdout, sys.stderr)
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
        sys.stderr.write(INTERRUPTED)
        if "torchcheck.lint.api" in sys.modules:
            from torchcheck.lint.api import exit_at_once_if_workers_were_killed

            exit_at_once_if_workers_were_killed(EXIT_INTERRUPTED)
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

    return isinstance(error, (ConfigError, UsageError, OutputError))
