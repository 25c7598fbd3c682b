"""How fast does `torchcheck` answer when it has nothing to parse, next to ruff?

    python bench/startup.py [--package timm==1.0.31] [--repeat 7]

A pre-commit hook or an editor runs the linter on every save: what it pays there is
start-up and the cache. In one run, on the same tree of real code, this measures (median
of ``--repeat`` runs, seconds):

- `torchcheck --version`, `--help`, `rules`: commands that parse nothing;
- `torchcheck lint` warm: every finding comes from the cache;
- a pre-commit-style warm run on 4 explicitly named files;
- `ruff check --no-cache --select ALL` on the same tree (ruff installed from the package
  index into ``bench/_corpus/ruff-venv``);

and prints warm / ruff (target <= 0.15), plus whether libcst was imported by each command
(it must not be).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

from common import WORK, download, torch_files

RUFF_VENV = WORK / "ruff-venv"
PRE_COMMIT_FILES = 4
_SHOW_LIBCST = "import sys, runpy; sys.argv = {argv!r}; \ntry:\n    runpy.run_module('torchcheck', run_name='__main__')\nexcept SystemExit:\n    pass\nprint('libcst' in sys.modules, file=sys.stderr)"


def ruff_executable() -> Path:
    ruff = RUFF_VENV / "bin" / "ruff"
    if not ruff.exists():
        venv.EnvBuilder(with_pip=True).create(RUFF_VENV)
        pip = [str(RUFF_VENV / "bin" / "python"), "-m", "pip", "install", "--quiet", "ruff"]
        subprocess.run(pip, check=True, stdout=sys.stderr)
    return ruff


def median_seconds(command: list[str], cwd: Path, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def imports_libcst(arguments: list[str], cwd: Path) -> bool:
    script = _SHOW_LIBCST.format(argv=["torchcheck", *arguments])
    output = subprocess.run([sys.executable, "-c", script], cwd=cwd, capture_output=True, text=True, check=False)
    return output.stderr.strip().splitlines()[-1] == "True"


def copy_tree(files: list[Path], source: Path, tree: Path) -> None:
    for path in files:
        destination = tree / path.relative_to(source.parent)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, destination)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--package", default="timm==1.0.31", help="wheel to download and lint")
    parser.add_argument("--repeat", type=int, default=7)
    options = parser.parse_args()

    source = download(options.package)
    files = torch_files(source)
    ruff = ruff_executable()
    ruff_version = subprocess.run([str(ruff), "--version"], capture_output=True, text=True, check=True).stdout.strip()
    with tempfile.TemporaryDirectory() as temporary:
        tree = Path(temporary) / "code"
        copy_tree(files, source, tree)
        named = [str(path.relative_to(tree)) for path in sorted(tree.rglob("*.py"))[:PRE_COMMIT_FILES]]
        print(f"corpus: {options.package}: {len(files)} files that mention torch; {ruff_version}; {os.cpu_count()} CPUs")

        torchcheck = [sys.executable, "-m", "torchcheck"]
        lint = [*torchcheck, "lint", ".", "--select", "ALL", "--exit-zero", "--quiet"]
        subprocess.run(lint, cwd=tree, stdout=subprocess.DEVNULL, check=False)  # fills the cache
        rows = {
            "torchcheck --version": [*torchcheck, "--version"],
            "torchcheck --help": [*torchcheck, "--help"],
            "torchcheck rules": [*torchcheck, "rules"],
            "torchcheck lint, warm": lint,
            f"torchcheck lint, warm, {PRE_COMMIT_FILES} files": [*lint[:-4], *named, "--select", "ALL", "--exit-zero", "--quiet"],
        }
        results = {label: median_seconds(command, tree, options.repeat) for label, command in rows.items()}
        ruff_time = median_seconds([str(ruff), "check", "--no-cache", "--select", "ALL", "--exit-zero", "--quiet", "."], tree, options.repeat)
        for label, command in rows.items():
            libcst = "imports libcst" if imports_libcst(command[3:], tree) else "no libcst"
            print(f"{label:<34} {results[label]:6.3f} s   {libcst}")
        print(f"{'ruff check --no-cache --select ALL':<34} {ruff_time:6.3f} s")
        warm = results["torchcheck lint, warm"]
        print(f"ratio warm torchcheck / ruff no-cache: {warm / ruff_time:5.2f}   (target <= 0.15)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
