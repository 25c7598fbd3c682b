"""Summarise the GPU job's JUnit XML files and fail a run that did not do its GPU work.

    python .ci/junit_audit.py RESULTS.xml [MORE.xml ...] [--slowest 10]

Prints the tests passed, failed and skipped, the count per marker (from the ``markers``
property that ``.ci/gpu_ci_plugin.py`` adds), the golden curves compared and written (from
torchcheck's ``torchcheck_golden`` property) and the slowest tests. Exits 1, naming why,
when no test ran, a test failed, a test was skipped for want of a GPU or of a golden, or
golden tests ran without comparing or writing a single golden.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import xml.etree.ElementTree as ElementTree
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

GPU_OR_GOLDEN_REASON = re.compile(r"\b(cuda|gpus?|nccl)\b|not available|no golden", re.IGNORECASE)
GOLDEN_DONE = ("compared", "written", "unchanged")


@dataclass(frozen=True)
class Case:
    nodeid: str
    seconds: float
    outcome: str  # passed, failed, error or skipped
    message: str = ""
    markers: tuple[str, ...] = ()
    goldens: tuple[str, ...] = ()  # the status of each golden curve the test compared or wrote


@dataclass
class Audit:
    cases: list[Case] = field(default_factory=list)

    def count(self, outcome: str) -> int:
        return sum(1 for case in self.cases if case.outcome == outcome)

    def problems(self) -> list[str]:
        found = []
        if not self.cases:
            found.append("no test ran: the marker selection or the collection found nothing")
        for case in self.cases:
            if case.outcome in ("failed", "error"):
                found.append(f"{case.outcome}: {case.nodeid}")
            elif case.outcome == "skipped" and GPU_OR_GOLDEN_REASON.search(case.message):
                found.append(f"skipped for want of a GPU or a golden: {case.nodeid}: {case.message}")
        golden_ran = [case for case in self.cases if "golden" in case.markers and case.outcome == "passed"]
        if golden_ran and not any(status in GOLDEN_DONE for case in self.cases for status in case.goldens):
            found.append(f"{len(golden_ran)} golden tests passed without comparing or writing a golden curve")
        return found

    def summary(self, slowest: int) -> list[str]:
        lines = [
            f"{len(self.cases)} tests: {self.count('passed')} passed, {self.count('failed')} failed, "
            f"{self.count('error')} errors, {self.count('skipped')} skipped"
        ]
        per_marker = Counter(marker for case in self.cases for marker in case.markers)
        if per_marker:
            lines.append("per marker: " + ", ".join(f"{name} {count}" for name, count in sorted(per_marker.items())))
        goldens = Counter(status for case in self.cases for status in case.goldens)
        if goldens:
            lines.append("golden curves: " + ", ".join(f"{count} {status}" for status, count in sorted(goldens.items())))
        if slowest and self.cases:
            lines.append(f"slowest {min(slowest, len(self.cases))}:")
            for case in sorted(self.cases, key=lambda case: case.seconds, reverse=True)[:slowest]:
                lines.append(f"  {case.seconds:8.2f} s  {case.nodeid}")
        return lines


def read_cases(path: Path) -> list[Case]:
    root = ElementTree.parse(path).getroot()
    return [_case(element) for element in root.iter("testcase")]


def _case(element: ElementTree.Element) -> Case:
    outcome, message = "passed", ""
    for kind, name in (("failure", "failed"), ("error", "error"), ("skipped", "skipped")):
        child = element.find(kind)
        if child is not None:
            outcome, message = name, child.get("message", "")
            break
    properties = [(p.get("name", ""), p.get("value", "")) for p in element.iter("property")]
    markers = next((value for name, value in properties if name == "markers"), "")
    goldens = tuple(json.loads(value)["status"] for name, value in properties if name == "torchcheck_golden")
    return Case(
        nodeid=_nodeid(element),
        seconds=float(element.get("time", "0") or 0),
        outcome=outcome,
        message=message,
        markers=tuple(filter(None, markers.split(","))),
        goldens=goldens,
    )


def _nodeid(element: ElementTree.Element) -> str:
    """JUnit names a test by dotted class name and test name; good enough to find it."""
    classname, name = element.get("classname", ""), element.get("name", "")
    return f"{classname}::{name}" if classname else name


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", type=Path, help="JUnit XML files written by pytest --junitxml")
    parser.add_argument("--slowest", type=int, default=10, help="how many of the slowest tests to list (default 10)")
    options = parser.parse_args(argv)
    audit = Audit()
    for path in options.files:
        if path.exists():
            audit.cases.extend(read_cases(path))
        else:
            print(f"junit_audit: {path} was not written (its phase did not get as far as running tests)")
    print("\n".join(audit.summary(options.slowest)))
    problems = audit.problems()
    if problems:
        print(f"\nGPU job audit FAILED ({len(problems)}):")
        print("\n".join(f"  {problem}" for problem in problems))
        return 1
    print("GPU job audit passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
