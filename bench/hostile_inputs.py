"""How much time and memory does `torchcheck lint` spend on hostile files?

    python bench/hostile_inputs.py [--only NAME ...] [--timeout 600] [--memory-gb 16] [--torchcheck CMD]

Each case of the reliability issue (deep f-strings, nested lambdas, long call chains, a
9.9 MB data file, notebook cells with many lines or a long blank line, code near CPython's
nesting limit) is written to a temporary folder and linted by its own `torchcheck lint
--no-cache` process, one file at a time (the in-process path a pre-commit hook, `--jobs 1`
and the editor take). Each process runs under an address-space limit (``--memory-gb``) and a
timeout, so a case that would exhaust the machine fails alone. The table gives wall time,
peak memory (max RSS), the exit status and the first line of output.

The tests (tests/lint/test_hostile_budget.py) prove each mechanism at small sizes; this runs
the sizes the issue names. ``--torchcheck`` runs another torchcheck (a checkout before a
fix) for a before/after table.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


def _notebook(source: str) -> str:
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


def _data_file(size: int) -> str:
    line = "DATA = [" + ", ".join(str(j) for j in range(200)) + "]\n"
    return "import torch\n" + line * (size // len(line))


def _code_file(size: int) -> str:
    block = "def f{i}(x, y):\n    z = torch.relu(x) + y * 2\n    return z.sum(dim=1)\n\n"
    lines = [block.format(i=i) for i in range(size // len(block))]
    return "import torch\n" + "".join(lines)


@dataclass(frozen=True)
class Case:
    name: str
    filename: str
    content: Callable[[], str]
    extra: tuple[str, ...] = ()


HEADER = "import torch\nx = torch.load(f)\n"
CASES = (
    Case("f-string, parentheses 10,000 deep", "fstr.py", lambda: HEADER + 'y = f"{' + "(" * 10_000 + "1" + ")" * 10_000 + '}"\n'),
    Case("f-string, parentheses 60,000 deep", "fstr.py", lambda: HEADER + 'y = f"{' + "(" * 60_000 + "1" + ")" * 60_000 + '}"\n'),
    Case("nested lambdas, 2,000", "lam.py", lambda: HEADER + "y = " + "lambda a, b: " * 2_000 + "1\n"),
    Case("nested lambdas, 4,000", "lam.py", lambda: HEADER + "y = " + "lambda a, b: " * 4_000 + "1\n"),
    Case("nested lambdas, 30,000", "lam.py", lambda: HEADER + "y = " + "lambda a, b: " * 30_000 + "1\n"),
    Case("call chain f(1,)..., 1,000", "chain.py", lambda: HEADER + "y = f" + "(1,)" * 1_000 + "\n"),
    Case("call chain f(1,)..., 2,000", "chain.py", lambda: HEADER + "y = f" + "(1,)" * 2_000 + "\n"),
    Case("call chain f(1,)..., 5,000", "chain.py", lambda: HEADER + "y = f" + "(1,)" * 5_000 + "\n"),
    Case("call chain f(1,)..., 100,000", "chain.py", lambda: HEADER + "y = f" + "(1,)" * 100_000 + "\n"),
    Case("unary minus 2,990 deep (CPython compiles it)", "u.py", lambda: HEADER + "y = " + "-" * 2_990 + "1\n"),
    Case("data literals, 9.9 MB", "big_data.py", lambda: _data_file(9_900_000)),
    Case("ordinary code, 2 MB", "big_code.py", lambda: _code_file(2_000_000)),
    Case(
        "notebook --fix, 20,000 equal lines",
        "lines.ipynb",
        lambda: _notebook("import torch\n" + "y = 1\n" * 10_000 + "x = torch.load(f)\n" + "y = 1\n" * 10_000),
        ("--fix", "--unsafe-fixes"),
    ),
    Case("same code as .py, --fix", "lines.py", lambda: "import torch\n" + "y = 1\n" * 10_000 + "x = torch.load(f)\n" + "y = 1\n" * 10_000, ("--fix", "--unsafe-fixes")),
    Case("notebook, a line of 50,000 spaces", "spaces.ipynb", lambda: _notebook(HEADER + " " * 50_000 + "\n")),
    Case("torch imported inside autocast", "a.py", lambda: 'with torch.autocast("cpu"):\n    import torch\nx = torch.load(f)\n'),
)


@dataclass(frozen=True)
class Measured:
    seconds: float
    peak_mb: float
    status: str
    first_line: str


def _limit_memory(gigabytes: float) -> Callable[[], None]:
    def limit() -> None:
        size = int(gigabytes * 1024**3)
        resource.setrlimit(resource.RLIMIT_AS, (size, size))

    return limit


def _status(returncode: int) -> str:
    if returncode == -9:
        return "killed (timeout)"
    return f"signal {-returncode}" if returncode < 0 else f"exit {returncode}"


def run_case(case: Case, torchcheck: list[str], timeout: float, memory_gb: float) -> Measured:
    with tempfile.TemporaryDirectory(prefix="tc-hostile-") as folder:
        path = Path(folder) / case.filename
        path.write_text(case.content())
        command = [*torchcheck, "lint", "--no-cache", "--output-format", "concise", *case.extra, case.filename]
        started = time.perf_counter()
        process = subprocess.Popen(
            command, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=_limit_memory(memory_gb)
        )
        try:
            output, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            output, _ = process.communicate()
        seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # this case's process alone: see _isolated
    first = next((line for line in output.decode(errors="replace").splitlines() if line.strip()), "")
    return Measured(seconds, peak, _status(process.returncode), first)


def _isolated(case: Case, torchcheck: list[str], timeout: float, memory_gb: float) -> Measured:
    """Measure in a child of our own, so that RUSAGE_CHILDREN holds this case's peak alone."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        measured = run_case(case, torchcheck, timeout, memory_gb)
        os.write(write, json.dumps(measured.__dict__).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    return Measured(**json.loads(data))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", default=None, help="run the cases whose name contains one of these words")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--memory-gb", type=float, default=16)
    parser.add_argument("--torchcheck", default=f"{shlex.quote(sys.executable)} -m torchcheck")
    options = parser.parse_args()
    torchcheck = shlex.split(options.torchcheck)
    cases = [case for case in CASES if not options.only or any(word in case.name for word in options.only)]
    print(f"{'case':48} {'seconds':>8} {'peak MB':>8}  {'status':16} first line of output")
    for case in cases:
        measured = _isolated(case, torchcheck, options.timeout, options.memory_gb)
        print(f"{case.name:48} {measured.seconds:8.1f} {measured.peak_mb:8.0f}  {measured.status:16} {measured.first_line[:110]}", flush=True)


if __name__ == "__main__":
    main()
