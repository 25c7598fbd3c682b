"""Fuzz `torchcheck lint` and `--fix --unsafe-fixes` with mutated programs, in-process.

    python bench/fuzz_lint.py [--count 300] [--seed 1] [--failures DIR]

Each program is a file of the lint corpus (fixtures/lint) or a few rules' INVALID examples
run together, then mutated 1-4 times: lines deleted, duplicated, swapped or nested in a
block, calls nested in calls, and form feeds, tabs, NUL bytes or unusual Unicode inserted.
Every program is linted with ``--select ALL`` and fixed twice through the public API
(``torchcheck.lint.lint`` on standard input). Counted:

- escapes: an exception out of ``lint``, or a finding that reports an internal error;
- non-idempotent fixes: a second ``--fix`` changes the fixed file again;
- broken fixes: the fixed file does not compile where the original did;
- positions outside the file: a finding or fix edit that points past a line's end or the
  last line.

Failing programs are saved to the failures folder, one ``.py`` per case with a ``.txt``
saying what failed. The run is deterministic for a seed.
"""

from __future__ import annotations

import argparse
import ast
import random
import re
import sys
import tempfile
import traceback
import warnings
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = sorted((ROOT / "fixtures" / "lint").glob("*.py"))
DEFAULT_FAILURES = Path(__file__).resolve().parent / "_corpus" / "fuzz-failures"
LINE_BREAK = re.compile(r"\r\n|\r|\n")
INSERTS = ["\x0c", "\t", "\x00", "é", "\u2028", "\u200b", "\ufeff", "𝔁", "\x0c    ", "    \t", "\\\n"]
NESTED_CALLS = ["torch.load(", "model.forward(", "torch.tensor(", "x.cuda().to(", "F.softmax("]
KINDS = ("escape", "non-idempotent", "broken-fix", "position-outside")


# ----------------------------------------------------------------------------- programs


def _examples() -> list[str]:
    from torchcheck.lint import registry

    return [example.code for rule in registry.all_rules() for example in rule.INVALID]


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True) or [""]


def _delete(text: str, rng: random.Random) -> str:
    lines = _lines(text)
    at = rng.randrange(len(lines))
    del lines[at : at + rng.randint(1, 3)]
    return "".join(lines)


def _duplicate(text: str, rng: random.Random) -> str:
    lines = _lines(text)
    at = rng.randrange(len(lines))
    block = lines[at : at + rng.randint(1, 6)]
    return "".join(lines[:at] + block * rng.randint(2, 4) + lines[at:])


def _swap(text: str, rng: random.Random) -> str:
    lines = _lines(text)
    first, second = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[first], lines[second] = lines[second], lines[first]
    return "".join(lines)


def _nest_block(text: str, rng: random.Random) -> str:
    """Indent a run of lines under ``if True:`` (or a ``def``), keeping the rest as it is."""
    lines = _lines(text)
    at = rng.randrange(len(lines))
    count = rng.randint(1, 8)
    header = rng.choice(["if True:\n", "def fuzzed(model, x):\n", "with torch.no_grad():\n", "for step in range(2):\n"])
    indent = re.match(r"[ \t]*", lines[at]).group()  # type: ignore[union-attr]
    body = ["    " + line if line.strip() else line for line in lines[at : at + count]]
    return "".join(lines[:at] + [indent + header.lstrip()] + body + lines[at + count :])


def _nest_calls(text: str, rng: random.Random) -> str:
    depth = rng.randint(2, 14)
    call = rng.choice(NESTED_CALLS)
    lines = _lines(text)
    at = rng.randrange(len(lines) + 1)
    nested = f"y = {call * depth}f{')' * depth}\n"
    return "".join(lines[:at] + [nested] + lines[at:])


def _insert(text: str, rng: random.Random) -> str:
    lines = _lines(text)
    at = rng.randrange(len(lines))
    line = lines[at]
    where = 0 if rng.random() < 0.5 else rng.randrange(len(line) + 1)
    lines[at] = line[:where] + rng.choice(INSERTS) + line[where:]
    return "".join(lines)


def _form_feed_indentation(text: str, rng: random.Random) -> str:
    """A form feed before the indentation of an indented line (Python ignores it there)."""
    lines = _lines(text)
    indented = [number for number, line in enumerate(lines) if line[:1] in (" ", "\t")]
    if not indented:
        return text
    at = rng.choice(indented)
    lines[at] = "\x0c" + lines[at]
    return "".join(lines)


MUTATIONS: tuple[Callable[[str, random.Random], str], ...] = (
    _delete,
    _duplicate,
    _swap,
    _nest_block,
    _nest_calls,
    _insert,
    _insert,
    _form_feed_indentation,
)


def programs(count: int, seed: int) -> Iterable[str]:
    rng = random.Random(seed)
    corpus = [path.read_text(encoding="utf-8") for path in CORPUS]
    examples = _examples()
    for _ in range(count):
        if rng.random() < 0.5 or not examples:
            text = rng.choice(corpus)
        else:
            text = "import torch\nimport torch.nn.functional as F\n" + "\n".join(rng.sample(examples, k=min(3, len(examples))))
        for _ in range(rng.randint(1, 4)):
            text = rng.choice(MUTATIONS)(text, rng)
        yield text


# ----------------------------------------------------------------------------- checks


@dataclass
class Failure:
    kind: str
    source: bytes
    detail: str


@dataclass
class Tally:
    programs: int = 0
    findings: int = 0
    fixed: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    failures: list[Failure] = field(default_factory=list)

    def fail(self, kind: str, source: bytes, detail: str) -> None:
        self.counts[kind] += 1
        self.failures.append(Failure(kind, source, detail))


def _compiles(source: bytes) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, "fuzzed.py", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _run(source: bytes, directory: Path, *, fix: bool):  # type: ignore[no-untyped-def]
    from torchcheck.lint import LintOptions, lint

    options = LintOptions(
        select=("ALL",),
        use_cache=False,
        jobs=1,
        fix=fix,
        unsafe_fixes=fix,
        stdin_filename=directory / "fuzzed.py",
        stdin_source=source,
    )
    return lint(options)


def _outside(text: str, row: int, column: int) -> bool:
    lines = LINE_BREAK.split(text)
    if not 1 <= row <= len(lines):
        return True
    return not 1 <= column <= len(lines[row - 1]) + 1


def _misplaced(source: bytes, diagnostics: Iterable[object]) -> list[str]:
    """Findings and fix edits of a UTF-8 file that point outside it."""
    try:
        text = source.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        return []
    problems = []
    for diagnostic in diagnostics:
        places = [diagnostic.location, diagnostic.end_location]  # type: ignore[attr-defined]
        fix = diagnostic.fix  # type: ignore[attr-defined]
        if fix is not None:
            places += [place for edit in fix.edits for place in (edit.location, edit.end_location)]
        for place in places:
            if _outside(text, place.row, place.column):
                problems.append(f"{diagnostic.code} at {place.row}:{place.column}: {diagnostic.message}")  # type: ignore[attr-defined]
    return problems


def _internal_errors(diagnostics: Iterable[object]) -> list[str]:
    return [d.message for d in diagnostics if "internal error" in d.message]  # type: ignore[attr-defined]


def check(source: bytes, directory: Path, tally: Tally) -> None:
    tally.programs += 1
    try:
        linted = _run(source, directory, fix=False)
        fixed = _run(source, directory, fix=True)
        once = fixed.fixed_stdin if fixed.fixed_stdin is not None else source
        again = _run(once, directory, fix=True) if once != source else None
    except Exception:  # noqa: BLE001 - what the fuzzing looks for
        tally.fail("escape", source, traceback.format_exc())
        return
    tally.findings += len(linted.diagnostics)
    errors = _internal_errors([*linted.diagnostics, *fixed.diagnostics])
    if errors:
        tally.fail("escape", source, "\n".join(errors))
    misplaced = _misplaced(source, linted.diagnostics)
    if misplaced:
        tally.fail("position-outside", source, "\n".join(misplaced))
    if once == source:
        return
    tally.fixed += 1
    if again is not None and again.fixed_stdin not in (None, once):
        tally.fail("non-idempotent", source, "second --fix changed the fixed file again")
    if _compiles(source) and not _compiles(once):
        tally.fail("broken-fix", source, "the fixed file does not compile:\n" + once.decode("utf-8", "replace"))


def save(failures: list[Failure], folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for number, failure in enumerate(failures, start=1):
        stem = folder / f"{failure.kind}-{number:04d}"
        stem.with_suffix(".py").write_bytes(failure.source)
        stem.with_suffix(".txt").write_text(failure.detail + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=300, help="how many programs (default 300)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the generator (default 1)")
    parser.add_argument("--failures", type=Path, default=DEFAULT_FAILURES, help=f"where failing programs are saved (default {DEFAULT_FAILURES})")
    options = parser.parse_args(argv)
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="torchcheck-fuzz-") as directory:
        for text in programs(options.count, options.seed):
            check(text.encode("utf-8", "surrogatepass"), Path(directory), tally)
    print(f"programs: {tally.programs}  findings: {tally.findings}  changed by --fix: {tally.fixed}")
    for kind in KINDS:
        print(f"{kind}: {tally.counts[kind]}")
    if tally.failures:
        save(tally.failures, options.failures)
        print(f"failing programs saved to {options.failures}")
    return 1 if tally.failures else 0


if __name__ == "__main__":
    sys.exit(main())
