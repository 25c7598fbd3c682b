"""How fast is `torchcheck lint` on real code, next to a plain libcst parse and TorchFix?

    python bench/lint_speed.py [--package timm==1.0.31 --package transformers==4.46.3]

Prints, for each corpus in one run (timm and transformers by default), wall-clock seconds and
the ratios the project promises: cold lint / single-process libcst parse (<= 0.70 on timm,
<= 0.75 on transformers), TorchFix / cold lint (>= 10),
warm (cached) lint / cold lint (<= 0.2), and a warm run after editing one module that
other files import (only that module is parsed again; tests/lint/test_project.py proves it).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import download, torch_files, torchfix_python


def timed(command: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def parse_time(files: list[Path]) -> float:
    script = (
        "import sys, time, libcst\n"
        "paths = sys.argv[1:]\n"
        "sources = [open(p, 'rb').read() for p in paths]\n"
        "start = time.perf_counter()\n"
        "for source in sources: libcst.parse_module(source)\n"
        "print(time.perf_counter() - start)\n"
    )
    output = subprocess.run([sys.executable, "-c", script, *map(str, files)], capture_output=True, text=True, check=True)
    return float(output.stdout.strip())


def _edit_an_imported_module(tree: Path) -> str:
    """Append a comment to the module most often named in the corpus's imports."""
    files = sorted(path for path in tree.rglob("*.py") if path.stem != "__init__")
    texts = [path.read_text(encoding="utf-8", errors="replace") for path in files]
    counts = {path: sum(f"import {path.stem}" in text or f".{path.stem} import" in text for text in texts) for path in files}
    module = max(files, key=lambda path: (counts[path], str(path)))
    with module.open("a", encoding="utf-8") as handle:
        handle.write("\n# edited\n")
    return str(module.relative_to(tree))


# cold lint / one-process parse, by corpus (issue 23); other corpora are held to the first
COLD_TARGETS = {"timm": 0.70, "transformers": 0.75}
DEFAULT_PACKAGES = ("timm==1.0.31", "transformers==4.46.3")


def measure(package: str, skip_torchfix: bool) -> None:
    source = download(package)
    files = torch_files(source)
    lines = sum(p.read_text(encoding="utf-8", errors="replace").count("\n") for p in files)
    with tempfile.TemporaryDirectory() as temporary:
        tree = Path(temporary) / "code"
        for path in files:
            destination = tree / path.relative_to(source.parent)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, destination)
        print(f"corpus: {package}: {len(files)} files that mention torch, {lines} lines, {os.cpu_count()} CPUs")

        parse = parse_time(sorted(tree.rglob("*.py")))
        torchcheck = [sys.executable, "-m", "torchcheck", "lint", ".", "--select", "ALL", "--exit-zero", "--quiet"]
        shutil.rmtree(tree / ".torchcheck_cache", ignore_errors=True)
        cold = timed(torchcheck, tree)
        warm = timed(torchcheck, tree)
        edited = _edit_an_imported_module(tree)
        after_edit = timed(torchcheck, tree)
        target = COLD_TARGETS.get(package.split("==")[0], COLD_TARGETS["timm"])
        print(f"libcst parse, one process:     {parse:7.2f} s")
        print(f"torchcheck lint, cold (ALL):   {cold:7.2f} s")
        print(f"torchcheck lint, warm (cache): {warm:7.2f} s")
        print(f"warm, after editing {edited}: {after_edit:7.2f} s")
        print(f"ratio cold / parse:    {cold / parse:6.2f}   (target <= {target:.2f})")
        print(f"ratio warm / cold:     {warm / cold:6.2f}   (target <= 0.20)")
        if not skip_torchfix:
            torchfix = timed([str(torchfix_python()), "-m", "torchfix", "--select", "ALL", "."], tree)
            print(f"TorchFix (ALL):                {torchfix:7.2f} s")
            print(f"ratio TorchFix / cold: {torchfix / cold:6.2f}   (target >= 10)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--package", action="append", help=f"wheel to download and lint, repeatable (default: {', '.join(DEFAULT_PACKAGES)})")
    parser.add_argument("--skip-torchfix", action="store_true")
    options = parser.parse_args()
    for package in options.package or DEFAULT_PACKAGES:
        measure(package, options.skip_torchfix)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
