"""Run TorchFix and torchcheck over the same files and compare their findings line by line.

Used by ``test_torchfix_parity.py`` and by ``bench/torchfix_parity.py`` (which prints the
full table for timm and transformers). TorchFix runs as a subprocess from its own
environment (``TORCHCHECK_TORCHFIX`` names its executable); torchcheck runs through its CLI.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from torchcheck.lint.registry import all_rules

# TorchFix codes torchcheck deliberately does not port, and why.
NOT_PORTED = {
    "TOR901": "applies only to PyTorch's own test suite (torch.library.Library in PyTorch tests)",
}
# TorchFix findings about a missing keyword argument.
MISSING_KEYWORD_CODES = frozenset({"TOR003", "TOR102", "TOR401"})
IMPORT_CODES = frozenset({"TOR004", "TOR103", "TOR105"})
_TORCHFIX_LINE = re.compile(r"^(?P<path>.+?):(?P<row>\d+):(?P<column>\d+): (?P<code>TOR\d{3}) (?P<message>.*)$")
_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})


@dataclass(frozen=True, order=True)
class Finding:
    path: str
    row: int
    column: int
    code: str


def torchcheck_codes_for(torchfix_code: str) -> frozenset[str]:
    """The torchcheck rules that report what ``torchfix_code`` reports."""
    return frozenset(rule.code for rule in all_rules() if torchfix_code in rule.torchfix_codes)


def run_torchfix(executable: str, paths: Sequence[Path], jobs: int = 2) -> list[Finding]:
    command = [executable, "--select", "ALL", "--jobs", str(jobs), *map(str, paths)]
    completed = subprocess.run(command, capture_output=True, text=True, check=False)
    if completed.returncode not in (0, 1):
        raise RuntimeError(f"TorchFix failed ({completed.returncode}): {completed.stderr[-2000:]}")
    findings = []
    for line in completed.stdout.splitlines():
        match = _TORCHFIX_LINE.match(line)
        if match:
            path = str(Path(match["path"]).resolve())
            findings.append(Finding(path, int(match["row"]), int(match["column"]), match["code"]))
    return sorted(findings)


def run_torchcheck(paths: Sequence[Path]) -> list[Finding]:
    command = [sys.executable, "-m", "torchcheck", "lint", "--select", "ALL", "--output-format", "json"]
    command += ["--no-cache", "--exit-zero", *map(str, paths)]
    completed = subprocess.run(command, capture_output=True, text=True, check=True)
    return sorted(
        Finding(str(Path(item["filename"]).resolve()), item["location"]["row"], item["location"]["column"], item["code"])
        for item in json.loads(completed.stdout)
    )


class _Ancestry(cst.CSTVisitor):
    """Finds the call or import TorchFix pointed at, the nodes enclosing it, and the names
    imported in try/except ImportError fallbacks."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, row: int, column: int) -> None:
        super().__init__()
        self.row, self.column = row, column
        self.stack: list[cst.CSTNode] = []
        self.found: tuple[cst.CSTNode, tuple[cst.CSTNode, ...]] | None = None
        self.fallback_names: set[str] = set()  # imported in a try/except ImportError or version test

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.ImportFrom) and _in_import_fallback(tuple(self.stack)):
            if not isinstance(node.names, cst.ImportStar):
                self.fallback_names.update(
                    (alias.asname.name if alias.asname else alias.name).value  # type: ignore[union-attr]
                    for alias in node.names
                )
        if isinstance(node, (cst.Call, cst.ImportFrom, cst.Import)):
            start = self.get_metadata(PositionProvider, node).start
            if (start.line, start.column + 1) == (self.row, self.column):
                # `f(x)(y)` and `f(x)` start at the same place: the innermost call is the one reported
                self.found = (node, tuple(self.stack))
        self.stack.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()


def _handler_names(handler: cst.ExceptHandler) -> set[str]:
    caught = handler.type
    elements = [element.value for element in caught.elements] if isinstance(caught, cst.Tuple) else [caught]
    return {element.value for element in elements if isinstance(element, cst.Name)}


def _in_import_fallback(ancestors: tuple[cst.CSTNode, ...]) -> bool:
    """Inside a try/except ImportError, or an if/else on the PyTorch version."""
    for node in ancestors:
        if isinstance(node, cst.Try) and any(_handler_names(handler) & _IMPORT_ERRORS for handler in node.handlers):
            return True
        if isinstance(node, cst.If) and _is_compatibility_branch(node):
            return True
    return False


def known_false_positive(finding: Finding) -> str | None:
    """Why a TorchFix finding is wrong, for the two kinds of mistakes the catalogue names
    (and torchcheck must not repeat); None when it is not one of them."""
    source = Path(finding.path).read_bytes()
    visitor = _Ancestry(finding.row, finding.column)
    MetadataWrapper(cst.parse_module(source)).visit(visitor)
    if visitor.found is None:
        return None
    node, ancestors = visitor.found
    if finding.code in MISSING_KEYWORD_CODES and isinstance(node, cst.Call):
        if any(argument.star == "**" for argument in node.args):
            return "the keyword may be supplied by **kwargs (where TorchFix offers a fix, it adds the keyword twice)"
        if any(isinstance(ancestor, cst.ExceptHandler) and "TypeError" in _handler_names(ancestor) for ancestor in ancestors):
            return "fallback for PyTorch versions without the keyword (inside `except TypeError:`)"
    if finding.code in IMPORT_CODES and _in_import_fallback(ancestors):
        return "fallback import (try/except ImportError or a version test): the name has two origins"
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in visitor.fallback_names:
        return "the callee is imported in a fallback (try/except ImportError or a version test): it has two origins"
    if any(_is_compatibility_branch(ancestor) for ancestor in ancestors):
        return "compatibility code for other PyTorch versions (an except handler or a version test)"
    return None


def _is_compatibility_branch(node: cst.CSTNode) -> bool:
    if isinstance(node, cst.ExceptHandler):
        return True
    if isinstance(node, (cst.If, cst.IfExp)):
        test = cst.Module(body=[]).code_for_node(node.test)
        return bool(re.search(r"version|hasattr\(|getattr\(", test))
    return False


def _columns(finding: Finding) -> tuple[int, int]:
    """TorchFix's column, and the first column inside the parentheses that start there (its
    libcst counts an expression's parentheses as part of it; torchcheck's does not)."""
    line = Path(finding.path).read_text(encoding="utf-8").splitlines()[finding.row - 1]
    rest = line[finding.column - 1 :]
    return finding.column, finding.column + len(rest) - len(rest.lstrip("( "))


@dataclass
class Comparison:
    """Every TorchFix finding, sorted into matched / judged false / missed."""

    matched: list[Finding] = field(default_factory=list)
    false_positives: list[tuple[Finding, str]] = field(default_factory=list)
    missed: list[Finding] = field(default_factory=list)
    not_ported: list[Finding] = field(default_factory=list)
    reproduced_false_positives: list[Finding] = field(default_factory=list)
    torchcheck_only: Counter[str] = field(default_factory=Counter)

    def table(self, torchfix: Sequence[Finding]) -> str:
        """Per TorchFix code: its findings, matched by torchcheck, judged false, missed."""
        rows = ["| TorchFix | torchcheck | TorchFix findings | matched | judged false | missed |", "|---|---|---|---|---|---|"]
        false_codes = Counter(finding.code for finding, _ in self.false_positives)
        matched_codes = Counter(finding.code for finding in self.matched)
        missed_codes = Counter(finding.code for finding in self.missed)
        for code, count in sorted(Counter(finding.code for finding in torchfix).items()):
            mapped = ", ".join(sorted(torchcheck_codes_for(code))) or f"not ported ({NOT_PORTED.get(code, '?')})"
            rows.append(f"| {code} | {mapped} | {count} | {matched_codes[code]} | {false_codes[code]} | {missed_codes[code]} |")
        return "\n".join(rows)


def compare(torchfix: Sequence[Finding], torchcheck: Sequence[Finding]) -> Comparison:
    # The same place: line and column (two findings can share a line, e.g. a removed
    # function and an ambiguous one in one expression).
    reported = {(finding.path, finding.row, finding.column, finding.code) for finding in torchcheck}
    result = Comparison()
    for finding in torchfix:
        codes = torchcheck_codes_for(finding.code)
        if not codes:
            result.not_ported.append(finding)
            continue
        found = any((finding.path, finding.row, column, code) in reported for code in codes for column in _columns(finding))
        reason = known_false_positive(finding)
        if reason is not None:
            result.false_positives.append((finding, reason))
            if found:
                result.reproduced_false_positives.append(finding)
        elif found:
            result.matched.append(finding)
        else:
            result.missed.append(finding)
    parity_codes = {rule.code for rule in all_rules() if rule.torchfix_codes}
    torchfix_rows = {(finding.path, finding.row) for finding in torchfix}
    for finding in torchcheck:
        if finding.code in parity_codes and (finding.path, finding.row) not in torchfix_rows:
            result.torchcheck_only[finding.code] += 1
    return result
