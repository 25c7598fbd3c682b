"""Measure how many real, publicly reported PyTorch mistakes `torchcheck lint` catches.

Usage: ``python bench/recall.py dev`` (or ``heldout``, or any other set directory under
``bench/recall/``), optionally ``--json PATH`` and ``--extend-select CODES`` (to measure
opt-in rules).

How the sets were built: every case in ``bench/recall/<set>/NNN_slug/`` reproduces one
mistake a user reported in public (forum thread, Q&A page, blog post, documentation page
or published code; the development set uses no GitHub issue or pull-request threads, the
held-out set is built from those, so the two never share a source; the later sets
``dev2`` (development) and ``heldout2`` (held-out, since used for tuning), then ``heldout3``
(held-out), all come from GitHub threads that no other set names). The code is written
anew, keeping the shape the user had (a class in another file, a helper, a branch taken
only on several GPUs, a legacy spelling ...). ``bad/`` holds the mistake, with a trailing
``# expect: TCKnnn`` comment on every line where the rule's page (``rules/TCKnnn.md``)
says the finding is reported; ``good/`` holds the corrected code, where those codes must
not be reported. The marks were decided from the rule pages before the linter was run.
A case may also be a correct lookalike with no marks: its ``case.md`` names the codes it
is about on a ``Codes: TCKnnn, ...`` line, and findings of those codes in ``good/``
count as false findings.

For each case both directories are linted with the default rule selection, in a copy of
the case placed outside any project, so that no ``[tool.torchcheck]`` configuration
applies (the CLI has no ``--isolated`` option), with the case directory as the working
directory. Reported: marks found (same file, line and code), marks missed, findings in
``bad/`` of codes the case does not mark (listed, not counted), and findings in ``good/``
of codes the case marks (counted as false findings).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

SETS_ROOT = Path(__file__).resolve().parent / "recall"
EXPECT_MARK = re.compile(r"#\s*expect:\s*(TCK\d{3}(?:\s*,\s*TCK\d{3})*)")
CODES_LINE = re.compile(r"Codes:\s*(TCK\d{3}(?:\s*,\s*TCK\d{3})*)")
Finding = tuple[str, int, str]  # (file relative to bad/ or good/, line, code)


@dataclass
class CaseResult:
    name: str
    expected: set[Finding]
    found: set[Finding] = field(default_factory=set)
    missed: set[Finding] = field(default_factory=set)
    extra_in_bad: set[Finding] = field(default_factory=set)
    false_in_good: set[Finding] = field(default_factory=set)

    @property
    def fully_caught(self) -> bool:
        return not self.missed


def expected_marks(bad_dir: Path) -> set[Finding]:
    marks: set[Finding] = set()
    for path in sorted(bad_dir.rglob("*.py")):
        relative = path.relative_to(bad_dir).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            match = EXPECT_MARK.search(line)
            if match:
                marks.update((relative, number, code.strip()) for code in match.group(1).split(","))
    return marks


def lookalike_codes(case_dir: Path) -> set[str]:
    """Codes a case's ``case.md`` names on a ``Codes:`` line (correct lookalikes carry no marks)."""
    case_md = case_dir / "case.md"
    if not case_md.is_file():
        return set()
    match = CODES_LINE.search(case_md.read_text(encoding="utf-8"))
    return {code.strip() for code in match.group(1).split(",")} if match else set()


def lint(case_dir: Path, subdir: str, extend_select: str | None = None) -> set[Finding]:
    """Findings of the default rules (plus ``extend_select``) in ``case_dir/subdir``, paths relative to ``subdir``."""
    command = [sys.executable, "-m", "torchcheck", "lint", subdir, "--output-format", "json", "--no-cache", "--exit-zero"]
    if extend_select:
        command += ["--extend-select", extend_select]
    completed = subprocess.run(command, cwd=case_dir, capture_output=True, text=True, check=False)
    if completed.returncode != 0:
        raise RuntimeError(f"{case_dir.name}/{subdir}: torchcheck lint failed:\n{completed.stderr}")
    return {_finding(item, case_dir / subdir) for item in json.loads(completed.stdout or "[]")}


def _finding(item: dict, root: Path) -> Finding:
    path = Path(item["filename"])
    if not path.is_absolute():
        path = root.parent / path
    relative = path.resolve().relative_to(root.resolve()).as_posix()
    return relative, int(item["location"]["row"]), item["code"]


def run_case(case_dir: Path, extend_select: str | None = None) -> CaseResult:
    result = CaseResult(case_dir.name, expected_marks(case_dir / "bad"))
    marked_codes = {code for _, _, code in result.expected} | lookalike_codes(case_dir)
    with tempfile.TemporaryDirectory(prefix="torchcheck-recall-") as scratch:
        copy = Path(scratch) / case_dir.name
        shutil.copytree(case_dir, copy)
        bad = lint(copy, "bad", extend_select)
        good = lint(copy, "good", extend_select)
    result.found = result.expected & bad
    result.missed = result.expected - bad
    result.extra_in_bad = {f for f in bad - result.expected if f[2] not in marked_codes}
    result.false_in_good = {f for f in good if f[2] in marked_codes}
    return result


def summarise(results: list[CaseResult]) -> dict:
    expected = sum(len(r.expected) for r in results)
    found = sum(len(r.found) for r in results)
    return {
        "cases": len(results),
        "expected": expected,
        "found": found,
        "recall": round(found / expected, 4) if expected else None,
        "cases_fully_caught": sum(r.fully_caught for r in results),
        "false_findings_on_good": sum(len(r.false_in_good) for r in results),
        "missed": [_describe(r.name, f) for r in results for f in sorted(r.missed)],
        "extra_in_bad": [_describe(r.name, f) for r in results for f in sorted(r.extra_in_bad)],
        "false_in_good": [_describe(r.name, f) for r in results for f in sorted(r.false_in_good)],
    }


def _describe(case: str, finding: Finding) -> str:
    path, line, code = finding
    return f"{case}/{path}:{line} {code}"


def print_report(results: list[CaseResult], summary: dict) -> None:
    for r in results:
        status = "ok  " if r.fully_caught and not r.false_in_good else "MISS" if r.missed else "FALSE"
        print(f"{status} {r.name}: {len(r.found)}/{len(r.expected)} found"
              f", {len(r.extra_in_bad)} extra in bad, {len(r.false_in_good)} false in good")
        for label, findings in (("missed", r.missed), ("extra in bad", r.extra_in_bad), ("false in good", r.false_in_good)):
            for finding in sorted(findings):
                print(f"      {label}: {_describe(r.name, finding)}")
    print()
    print(f"recall: {summary['found']}/{summary['expected']} = {summary['recall']}")
    print(f"cases fully caught: {summary['cases_fully_caught']}/{summary['cases']}")
    print(f"false findings on good/: {summary['false_findings_on_good']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    available = sorted(p.name for p in SETS_ROOT.iterdir() if p.is_dir())
    parser.add_argument("set", choices=available, help="which recall set (directory under bench/recall/) to measure")
    parser.add_argument("--json", metavar="PATH", help="also write the summary as JSON to PATH")
    parser.add_argument("--extend-select", metavar="CODES", help="also enable these rules (opt-in ones), as `torchcheck lint --extend-select`")
    args = parser.parse_args(argv)
    case_dirs = sorted(p for p in (SETS_ROOT / args.set).iterdir() if (p / "bad").is_dir())
    results = [run_case(case_dir, args.extend_select) for case_dir in case_dirs]
    summary = summarise(results)
    print_report(results, summary)
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
