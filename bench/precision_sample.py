"""How many findings of the flow rules are true on real code? A labelling sheet and its table.

    python bench/precision_sample.py sample CORPUS --sheet labels.csv [--per-rule 20] [--seed 11]
    python bench/precision_sample.py table labels.csv

``sample`` lints ``CORPUS`` (a folder of third-party code: library sources, cloned training
repositories) with ``torchcheck lint --output-format json --no-cache`` and the default rules,
keeps the findings of the flow rules (the rules that reason about the training loop, devices,
AMP, checkpoints, modules, aliasing and data loading: ``FLOW_RULES``) that are on by default,
and writes a CSV sheet: every finding of a rule with at most ``--per-rule`` findings, otherwise
a sample of that many drawn with a generator seeded by ``--seed`` and the rule's code, so the
same findings always give the same sample. Each row has the file and line (and the notebook
cell), the message, the source lines around the finding (three either side, the finding's
line marked ``>``), how many findings the rule had in all, and empty ``label`` and ``reason``
columns. ``--save-findings`` keeps the whole JSON report, ``--findings`` reads one saved earlier
instead of linting again, and
``--opt-in`` samples the opt-in flow rules too (after enabling them), and ``--every-rule`` the
rules outside the flow families (deprecations, style, idioms) as well. ``--labels-from`` copies
the labels and reasons of an earlier sheet onto the rows that show the same finding (same rule,
file, line and message), so a second pass over the same corpus only needs its new findings
labelled.

Label each row by reading the code: ``true`` when it is the mistake (or the real risk) that
the rule's page describes, ``false`` when the code is correct, ``debatable`` when a reviewer could
argue either way (counted apart, outside the precision). ``table`` reads the filled-in
sheet back and prints a Markdown table per rule (labelled, true, false, precision) with the
totals for the default-on rules: the plain ratio over the labelled rows, and the estimate
weighted by each rule's number of findings (a rule's sample stands for all its findings).

Keep the sheet outside the repository: labels are working notes about other people's code.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

FLOW_RULE_RANGES = (
    (101, 115),
    (201, 210),
    (301, 310),
    (401, 404),
    (501, 502),
    (601, 611),
    (701, 701),
    (704, 705),
    (801, 804),
)
FLOW_RULES = frozenset(f"TCK{number}" for low, high in FLOW_RULE_RANGES for number in range(low, high + 1))
CONTEXT_LINES = 3
COLUMNS = (
    "id",
    "rule",
    "name",
    "default",
    "rule_findings",
    "file",
    "line",
    "cell",
    "message",
    "context",
    "label",
    "reason",
)
TRUE_LABELS = frozenset({"true", "t", "tp", "yes"})
FALSE_LABELS = frozenset({"false", "f", "fp", "no"})
DEBATABLE_LABELS = frozenset({"debatable", "d", "?"})  # counted apart, left out of precision

NO_FINDINGS_FILE = "torchcheck wrote no JSON report; its error output was:\n{stderr}"
BAD_LABEL = "{sheet}: row {row_id}: label {label!r} is neither true, false nor debatable (leave it empty if not labelled yet)"
NO_SUCH_PATH = "{path}: no such {kind}"
MISSING_COLUMNS = "{sheet}: not a labelling sheet: the columns {columns} are missing"


@dataclass(frozen=True)
class Finding:
    rule: str
    name: str
    file: str  # relative to the corpus
    line: int
    cell: int | None
    message: str


# ----------------------------------------------------------------------------- sample


def flow_rules_by_default(every_rule: bool = False) -> dict[str, bool]:
    """Each flow rule's code (with ``every_rule``, each rule's) and whether it is on by
    default, from torchcheck's own catalogue."""
    from torchcheck.lint.catalogue import rule_infos

    return {rule.code: rule.default_enabled for rule in rule_infos() if every_rule or rule.code in FLOW_RULES}


def lint_report(corpus: Path, extra_rules: Sequence[str], keep: Path | None) -> list[dict]:
    """The findings of ``torchcheck lint`` on ``corpus``, as its JSON output gives them."""
    with tempfile.TemporaryDirectory() as temporary:
        report = keep or Path(temporary) / "findings.json"
        report.unlink(missing_ok=True)  # so that a report left by an earlier run is never read as this one's
        command = [sys.executable, "-m", "torchcheck", "lint", "--no-cache", "--exit-zero", "--quiet"]
        command += ["--output-format", "json", "--output-file", str(report)]
        if extra_rules:
            command += ["--extend-select", ",".join(extra_rules)]
        completed = subprocess.run([*command, str(corpus)], capture_output=True, text=True, check=False)
        if not report.exists():
            raise SystemExit(NO_FINDINGS_FILE.format(stderr=completed.stderr.strip()))
        return json.loads(report.read_text(encoding="utf-8"))


def as_finding(record: dict, corpus: Path) -> Finding:
    path = Path(record["filename"])
    relative = path.relative_to(corpus) if path.is_relative_to(corpus) else path
    return Finding(
        rule=record["code"],
        name=record["name"],
        file=str(relative),
        line=record["location"]["row"],
        cell=record.get("cell"),
        message=record["message"],
    )


def sample_per_rule(findings: Iterable[Finding], per_rule: int, seed: int) -> dict[str, tuple[list[Finding], int]]:
    """Per rule: the findings to label (all, or ``per_rule`` of them drawn reproducibly) and the total."""
    by_rule: dict[str, list[Finding]] = defaultdict(list)
    for finding in findings:
        by_rule[finding.rule].append(finding)
    chosen = {}
    for rule, found in sorted(by_rule.items()):
        found.sort(key=lambda f: (f.file, f.cell or 0, f.line, f.message))
        picked = found if len(found) <= per_rule else random.Random(f"{seed}:{rule}").sample(found, per_rule)
        chosen[rule] = (sorted(picked, key=lambda f: (f.file, f.cell or 0, f.line)), len(found))
    return chosen


def source_lines(path: Path, cell: int | None) -> list[str]:
    """The lines the finding's row counts in: the file's, or for a notebook the cell's."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if cell is None:
        return text.splitlines()
    source = json.loads(text)["cells"][cell - 1]["source"]
    return ("".join(source) if isinstance(source, list) else source).splitlines()


def context(lines: list[str], line: int) -> str:
    first, last = max(line - CONTEXT_LINES, 1), min(line + CONTEXT_LINES, len(lines))
    return "\n".join(f"{'>' if n == line else ' '}{n:5d} {lines[n - 1]}" for n in range(first, last + 1))


def write_sheet(
    sheet: Path,
    corpus: Path,
    chosen: dict[str, tuple[list[Finding], int]],
    default: dict[str, bool],
    known: dict[tuple[str, str, str, str], tuple[str, str]],
) -> int:
    rows = 0
    with sheet.open("w", newline="", encoding="utf-8") as stream:
        writer = csv.DictWriter(stream, fieldnames=COLUMNS)
        writer.writeheader()
        for rule, (picked, total) in chosen.items():
            for finding in picked:
                rows += 1
                lines = source_lines(corpus / finding.file, finding.cell)
                label, reason = known.get((rule, finding.file, str(finding.line), finding.message), ("", ""))
                writer.writerow(
                    {
                        "id": rows,
                        "rule": rule,
                        "name": finding.name,
                        "default": "on" if default[rule] else "opt-in",
                        "rule_findings": total,
                        "file": finding.file,
                        "line": finding.line,
                        "cell": finding.cell or "",
                        "message": finding.message,
                        "context": context(lines, finding.line),
                        "label": label,
                        "reason": reason,
                    }
                )
    return rows


def earlier_labels(sheet: Path | None) -> dict[tuple[str, str, str, str], tuple[str, str]]:
    """The labels of an earlier sheet, by finding: (rule, file, line, message) -> (label, reason)."""
    if sheet is None:
        return {}
    with sheet.open(newline="", encoding="utf-8") as stream:
        return {
            (row["rule"], row["file"], row["line"], row["message"]): (row["label"], row["reason"])
            for row in csv.DictReader(stream)
            if row["label"].strip()
        }


def run_sample(options: argparse.Namespace) -> int:
    corpus = options.corpus.resolve()
    default = flow_rules_by_default(options.every_rule)
    opt_in = sorted(code for code, on in default.items() if not on) if options.opt_in else []
    wanted = {code for code, on in default.items() if on or options.opt_in}
    records = (
        json.loads(options.findings.read_text(encoding="utf-8"))
        if options.findings
        else lint_report(corpus, opt_in, options.save_findings)
    )
    findings = [as_finding(r, corpus) for r in records if r["code"] in wanted]
    chosen = sample_per_rule(findings, options.per_rule, options.seed)
    rows = write_sheet(options.sheet, corpus, chosen, default, earlier_labels(options.labels_from))
    counts = ", ".join(f"{rule} {total}" for rule, (_, total) in chosen.items())
    print(f"{len(findings)} flow-rule findings ({counts}); {rows} rows to label in {options.sheet}")
    return 0


# ----------------------------------------------------------------------------- table


@dataclass(frozen=True)
class RuleTally:
    rule: str
    default: bool
    findings: int
    true: int
    false: int
    debatable: int = 0

    @property
    def labelled(self) -> int:
        return self.true + self.false

    @property
    def precision(self) -> float | None:
        return self.true / self.labelled if self.labelled else None


def read_labels(sheet: Path) -> list[RuleTally]:
    with sheet.open(newline="", encoding="utf-8") as stream:
        reader = csv.DictReader(stream)
        missing = set(COLUMNS) - set(reader.fieldnames or ())
        if missing:
            raise SystemExit(MISSING_COLUMNS.format(sheet=sheet, columns=", ".join(sorted(missing))))
        rows = list(reader)
    labels: dict[str, Counter[str]] = defaultdict(Counter)
    for row in rows:
        label = row["label"].strip().lower()
        if label and label not in TRUE_LABELS | FALSE_LABELS | DEBATABLE_LABELS:
            raise SystemExit(BAD_LABEL.format(sheet=sheet, row_id=row["id"], label=row["label"]))
        verdict = "true" if label in TRUE_LABELS else "false" if label in FALSE_LABELS else "debatable" if label else "open"
        labels[row["rule"]][verdict] += 1
    facts = {row["rule"]: (row["default"] == "on", int(row["rule_findings"])) for row in rows}
    return [RuleTally(rule, *facts[rule], labels[rule]["true"], labels[rule]["false"], labels[rule]["debatable"]) for rule in sorted(labels)]


def percent(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def table_lines(tallies: list[RuleTally]) -> list[str]:
    lines = [
        "| rule | default | findings | labelled | true | false | debatable | precision |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for t in tallies:
        default = "on" if t.default else "opt-in"
        lines.append(
            f"| {t.rule} | {default} | {t.findings} | {t.labelled} | {t.true} | {t.false} | {t.debatable} | {percent(t.true, t.labelled)} |"
        )
    on = [t for t in tallies if t.default]
    labelled, true, debatable = sum(t.labelled for t in on), sum(t.true for t in on), sum(t.debatable for t in on)
    lines.append(
        f"| **default-on total** | on | {sum(t.findings for t in on)} | {labelled} | {true} | {labelled - true} | {debatable} | **{percent(true, labelled)}** |"
    )
    weighted = [t for t in on if t.labelled]
    estimate = sum(t.findings * t.precision for t in weighted)  # type: ignore[operator]
    lines.append("")
    lines.append(
        f"Weighted by findings (each rule's sample stands for all its findings): "
        f"{percent(estimate, sum(t.findings for t in weighted))} of default-on flow-rule findings are true."
    )
    return lines


def run_table(options: argparse.Namespace) -> int:
    print("\n".join(table_lines(read_labels(options.sheet))))
    return 0


# ----------------------------------------------------------------------------- main


def parse_options(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    sample = commands.add_parser("sample", help="lint a corpus and write a labelling sheet")
    sample.add_argument("corpus", type=Path, help="folder of third-party code to lint")
    sample.add_argument("--sheet", type=Path, required=True, help="CSV labelling sheet to write")
    sample.add_argument("--per-rule", type=int, default=20, help="findings to sample per rule (default: 20)")
    sample.add_argument("--seed", type=int, default=11, help="seed of the sample (default: 11)")
    sample.add_argument("--findings", type=Path, help="JSON report of an earlier `torchcheck lint` run on CORPUS")
    sample.add_argument("--save-findings", type=Path, help="keep the whole JSON report of the lint run here")
    sample.add_argument("--opt-in", action="store_true", help="sample the opt-in flow rules too")
    sample.add_argument("--every-rule", action="store_true", help="sample every rule, not only the flow rules")
    sample.add_argument("--labels-from", type=Path, help="earlier sheet whose labels to copy onto the same findings")
    table = commands.add_parser("table", help="print the precision table of a filled-in sheet")
    table.add_argument("sheet", type=Path, help="CSV labelling sheet with the label column filled in")
    return parser.parse_args(argv)


def check_inputs(options: argparse.Namespace) -> None:
    """Name a missing input in one line instead of a traceback halfway through the run."""
    if options.command == "table":
        wanted = [(options.sheet, "file")]
    else:
        wanted = [(options.corpus, "folder"), (options.findings, "file"), (options.labels_from, "file")]
    for path, kind in wanted:
        exists = path is None or (path.is_dir() if kind == "folder" else path.is_file())
        if not exists:
            raise SystemExit(NO_SUCH_PATH.format(path=path, kind=kind))


def main(argv: Sequence[str] | None = None) -> int:
    options = parse_options(argv)
    check_inputs(options)
    return run_sample(options) if options.command == "sample" else run_table(options)


if __name__ == "__main__":
    raise SystemExit(main())
