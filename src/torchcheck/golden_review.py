"""``torchcheck golden review`` and ``torchcheck golden list``: golden curves read as data.

Building the command line imports only this module; the file format and comparison modules
are imported when a golden command runs, so ``torchcheck lint`` starts no slower.

Reads JSON only and never imports torch, so a reviewer's machine (or a CI job without
torch) can summarise what a pull request moved: per curve and metric the largest change,
the first step that changed, whether it stays inside the curve's default tolerance
("noise") or not ("behaviour change"), a torch version or initial weights that changed, and
the other keys of the curve left stale.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from torchcheck.checks._golden_compare import Tolerance
    from torchcheck.checks._golden_format import GoldenRecord

__all__ = ["add_arguments", "run"]

EXIT_OK, EXIT_ERROR = 0, 2
NOT_A_REPOSITORY = "torchcheck golden review: {error}"
NOTHING_CHANGED = "No golden file changed against {rev}{where}."
NO_GOLDENS = "No golden files under {paths}."
_MARKER = '"torchcheck_golden"'  # FORMAT_MARKER of the file format, without importing it


def add_arguments(golden: argparse.ArgumentParser) -> None:
    commands = golden.add_subparsers(dest="golden_command", metavar="ACTION", required=True)
    review = commands.add_parser("review", help="summarise what changed golden files moved, against a git revision")
    review.add_argument("paths", nargs="*", type=Path, help="files or directories (default: .)")
    review.add_argument("--against", default="HEAD", metavar="REV", help="the git revision to compare with (default: HEAD)")
    listing = commands.add_parser("list", help="list golden curves and their keys, with torch version and record date")
    listing.add_argument("paths", nargs="*", type=Path, help="files or directories (default: .)")


def run(options: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    paths = list(options.paths) or [Path(".")]
    if options.golden_command == "list":
        return list_goldens(paths, out, err)
    return review(paths, options.against, out, err)


# --- list -------------------------------------------------------------------------


def find_goldens(paths: Iterable[Path]) -> list[Path]:
    """JSON files that are golden files, under ``paths`` (files or directories)."""
    found: list[Path] = []
    for path in paths:
        candidates = sorted(path.rglob("*.json")) if path.is_dir() else [path]
        found += [candidate for candidate in candidates if _looks_golden(candidate)]
    return found


def _looks_golden(path: Path) -> bool:
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            return _MARKER in handle.read(200)
    except OSError:
        return False


def list_goldens(paths: Sequence[Path], out: TextIO, err: TextIO) -> int:
    from torchcheck.checks._golden_format import GoldenFileError, read_golden

    files = find_goldens(paths)
    if not files:
        out.write(NO_GOLDENS.format(paths=", ".join(map(str, paths))) + "\n")
        return EXIT_OK
    status = EXIT_OK
    current = None
    for path in files:
        if path.parent != current:
            current = path.parent
            out.write(f"{current}\n")
        try:
            record = read_golden(path, expected_stem=path.stem)
        except GoldenFileError as error:
            err.write(f"{error}\n")
            status = EXIT_ERROR
            continue
        recorded = record.recorded
        out.write(
            f"  {record.key.stem:<48} {record.steps:>5} steps  torch {recorded.get('torch', '?')}  "
            f"recorded {recorded.get('date', '?')}\n"
        )
    return status


# --- review -----------------------------------------------------------------------


def review(paths: Sequence[Path], against: str, out: TextIO, err: TextIO) -> int:
    from torchcheck.checks._golden_format import GoldenFileError

    try:
        root = Path(_git(["rev-parse", "--show-toplevel"], Path(".")).strip())
        _git(["rev-parse", "--verify", "--quiet", f"{against}^{{commit}}"], root)
        changed = _changed_files(paths, against, root)
    except _GitError as error:
        err.write(NOT_A_REPOSITORY.format(error=error) + "\n")
        return EXIT_ERROR
    status = EXIT_OK
    reviewed = 0
    for relative, change in changed:
        try:
            text = _review_file(root, relative, change, against)
        except GoldenFileError as error:
            err.write(f"{error}\n")
            status = EXIT_ERROR
            continue
        if text:
            out.write(text)
            reviewed += 1
    if not reviewed and status == EXIT_OK:
        where = f" under {', '.join(map(str, paths))}" if paths != [Path(".")] else ""
        out.write(NOTHING_CHANGED.format(rev=against, where=where) + "\n")
    return status


class _GitError(Exception):
    pass


def _git(arguments: list[str], cwd: Path) -> str:
    import subprocess

    try:
        result = subprocess.run(["git", *arguments], cwd=cwd, capture_output=True, text=True, check=False)
    except OSError as error:
        raise _GitError(f"cannot run git ({error})") from None
    if result.returncode != 0:
        message = result.stderr.strip() or f"git {' '.join(arguments)} failed"
        if "--verify" in arguments:
            message = f"{arguments[-1].split('^')[0]!r} is not a revision of this repository"
        raise _GitError(message)
    return result.stdout


def _changed_files(paths: Sequence[Path], against: str, root: Path) -> list[tuple[str, str]]:
    """``(path relative to the repository root, change)`` of golden-looking JSON files."""
    specs = [str(path.resolve()) for path in paths]
    listed = _git(["diff", "--name-status", "--no-renames", against, "--", *specs], root)
    changes = {}
    for line in listed.splitlines():
        kind, _, name = line.partition("\t")
        changes[name] = {"A": "added", "D": "deleted"}.get(kind[:1], "modified")
    untracked = _git(["ls-files", "--others", "--exclude-standard", "--", *specs], root)
    for name in untracked.splitlines():
        changes.setdefault(name, "added")
    return [(name, change) for name, change in sorted(changes.items()) if name.endswith(".json")]


def _review_file(root: Path, relative: str, change: str, against: str) -> str:
    from torchcheck.checks._golden_compare import describe_changes
    from torchcheck.checks._golden_format import parse_golden

    path = root / relative
    old_text = _old_text(root, relative, against)
    new = parse_golden(path.read_text(encoding="utf-8"), path) if path.exists() and _looks_golden(path) else None
    old = parse_golden(old_text, f"{relative} at {against}") if old_text and _MARKER in old_text[:200] else None
    if new is None and old is None:
        return ""
    if new is None:
        return f"{relative} (deleted)\n"
    lines = [f"{relative} ({change})"]
    if old is None:
        lines.append(f"  {describe_changes(None, new)}")
    else:
        lines += [f"  {line}" for line in _metric_lines(old, new)]
        lines += [f"  {line}" for line in _context_lines(old, new)]
    stale = _stale_siblings(path, new)
    if stale:
        lines.append(f"  keys left stale (other initial weights or batches): {', '.join(stale)}")
    siblings = sorted(p.stem for p in path.parent.glob("*.json") if p != path)
    if siblings:
        lines.append(f"  other keys of this curve: {', '.join(siblings)}")
    return "\n".join(lines) + "\n"


def _old_text(root: Path, relative: str, against: str) -> str | None:
    try:
        return _git(["show", f"{against}:{relative}"], root)
    except _GitError:
        return None


def _metric_lines(old: GoldenRecord, new: GoldenRecord) -> list[str]:
    from torchcheck.checks._golden_compare import compare_records, describe_changes

    if old.columns != new.columns or old.steps != new.steps:
        return [describe_changes(old, new)]
    tolerances = _review_tolerances(new)
    verdicts = {c.column: c for c in compare_records(new, old, tolerances)}
    lines = []
    for part in describe_changes(old, new).split("; "):
        column = part.split(":", 1)[0]
        verdict = verdicts.get(column)
        if verdict is not None and "unchanged" not in part:
            tolerance = tolerances[column]
            kind = "behaviour change" if verdict.fails else "noise"
            part += f" -> {kind} (default tolerance {tolerance.describe(1)})"
        lines.append(part)
    return lines


def _review_tolerances(record: GoldenRecord) -> dict[str, Tolerance]:
    """The curve's default tolerances; the user's own metrics, whose tolerance lives in
    the test, compare exactly."""
    from torchcheck.checks._golden_compare import Exact, resolve_tolerances

    tolerances: dict[str, Tolerance] = {}
    for column in record.columns[1:]:
        try:
            tolerances[column] = resolve_tolerances([column], record.key)[column]
        except ValueError:
            tolerances[column] = Exact()
    return tolerances


def _context_lines(old: GoldenRecord, new: GoldenRecord) -> list[str]:
    lines = []
    before, after = old.recorded.get("torch"), new.recorded.get("torch")
    if before != after:
        lines.append(f"torch {before} -> {after}")
    if old.init_sha256 != new.init_sha256:
        lines.append("initial weights changed (init_sha256): the model's initialisation changed")
    if old.data_sha256 != new.data_sha256:
        lines.append("batches changed (data_sha256)")
    return lines


def _stale_siblings(path: Path, record: GoldenRecord) -> list[str]:
    from torchcheck.checks._golden_format import GoldenFileError, read_golden

    stale = []
    for sibling in sorted(path.parent.glob("*.json")):
        if sibling == path:
            continue
        try:
            other = read_golden(sibling)
        except (GoldenFileError, OSError):
            continue
        if (other.init_sha256, other.data_sha256) != (record.init_sha256, record.data_sha256):
            stale.append(sibling.stem)
    return stale
