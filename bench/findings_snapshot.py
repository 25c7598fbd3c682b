"""The findings of every rule (opt-in ones included) on real code, as one sorted JSON file:
a refactoring of the rules or the semantic model must leave it unchanged, byte for byte.

    python bench/findings_snapshot.py OUT.json [--corpus NAME ...]

Lints each corpus (``bench/_corpus/<name>``: library wheels unpacked by ``bench/common.py``,
plus ``fixtures`` and the recall sets of ``bench/recall``, except the sets still held out, named
in ``bench/recall/held_out.txt``) with ``--select ALL --no-cache``,
and writes the findings whole (fixes and other places included, paths relative to the
corpus), sorted. Compare two snapshots with ``cmp`` or ``diff``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from common import BENCH, download

ROOT = BENCH.parent
WHEELS = ("timm==1.0.31", "ultralytics==8.3.40", "torchtune==0.6.1", "composer==0.29.0", "accelerate==1.2.1")
LOCAL = {"fixtures": ROOT / "fixtures", "recall": BENCH / "recall"}
HELD_OUT = BENCH / "recall" / "held_out.txt"  # sets nobody may look at while developing


def corpora(names: list[str] | None) -> dict[str, Path]:
    found = dict(LOCAL)
    for requirement in WHEELS:
        found[requirement.split("==")[0]] = download(requirement)
    return {name: path for name, path in found.items() if not names or name in names}


def findings(folder: Path) -> list[dict[str, object]]:
    command = [sys.executable, "-m", "torchcheck", "lint", "--select", "ALL", "--no-cache", "--exit-zero",
               "--output-format", "json", str(folder)]
    if HELD_OUT.exists() and folder == LOCAL["recall"]:
        command += ["--extend-exclude", ",".join(HELD_OUT.read_text().split())]
    report = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
    for item in report:
        item["filename"] = str(Path(item["filename"]).resolve().relative_to(folder.resolve()))
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--corpus", action="append", help="only these corpora (default: all)")
    arguments = parser.parse_args()
    snapshot = {}
    for name, folder in corpora(arguments.corpus).items():
        items = findings(folder)
        snapshot[name] = sorted(items, key=lambda item: json.dumps(item, sort_keys=True))
        print(f"{name}: {len(items)} findings", file=sys.stderr)
    arguments.out.write_text(json.dumps(snapshot, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
