"""Prepare the TorchFix parity test: TorchFix in its own environment and real code to compare on.

    eval "$(python bench/parity_setup.py)"        # what .ci/run does
    eval "$(python bench/parity_setup.py --full)" # all of timm and transformers (slow: ~20 min of TorchFix)

Prints the ``export`` lines that point the parity test at them. Downloads wheels with
``pip download --no-deps`` into ``.cache/parity/`` of this checkout (git-ignored and never
shared with another checkout; a DEST argument puts them elsewhere). By default the test
compares on a slice so that CI stays short: the files of timm and transformers listed in
``torchfix_parity_files.txt``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shlex
import shutil
import sys
from pathlib import Path

from common import download, torchfix_python

DEFAULT_DESTINATION = Path(__file__).resolve().parents[1] / ".cache" / "parity"
TIMM = "timm==1.0.31"
TRANSFORMERS = "transformers==5.23.0"
# Files of these two versions where TorchFix reports something. A file where it reports nothing
# cannot change the comparison (which judges TorchFix's findings), yet TorchFix spends most of
# its time parsing such files. Written by `bench/torchfix_parity.py --write-slice`: regenerate
# it whenever the versions above change.
SLICE_FILES = Path(__file__).resolve().with_name("torchfix_parity_files.txt")
_STALE_SLICE = (
    "{path} is listed in {listing} but is not part of {requirement}: regenerate the list with "
    "`python bench/torchfix_parity.py --write-slice` after changing the pinned versions"
)


def slice_files(listing: Path = SLICE_FILES) -> list[str]:
    """The listed files, as paths starting with their package's folder (``timm/...``)."""
    lines = listing.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def make_slice(packages: dict[str, Path], work: Path) -> list[Path]:
    """The listed files of each package, with their relative paths kept; one folder per
    package. The folder is named after the list's content, so an edited list gets a new one."""
    listed = slice_files()
    fingerprint = hashlib.sha256("\n".join(listed).encode()).hexdigest()[:12]
    destination = work / f"slice-{fingerprint}"
    if not destination.exists():
        staging = destination.with_name(destination.name + ".partial")
        shutil.rmtree(staging, ignore_errors=True)
        for relative in listed:
            _copy_listed(packages, relative, staging)
        staging.rename(destination)
    return [destination / name for name in packages]


def _copy_listed(packages: dict[str, Path], relative: str, staging: Path) -> None:
    package = relative.split("/", 1)[0]
    source = packages[package].parent / relative if package in packages else None
    if source is None or not source.is_file():
        requirement = TIMM if package == "timm" else TRANSFORMERS
        sys.exit(_STALE_SLICE.format(path=relative, listing=SLICE_FILES.name, requirement=requirement))
    target = staging / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, target)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("destination", nargs="?", type=Path, default=DEFAULT_DESTINATION)
    parser.add_argument("--full", action="store_true", help="compare on all of timm and transformers")
    options = parser.parse_args()
    work = options.destination.resolve()
    torchfix = torchfix_python(work / "torchfix-venv").parent / "torchfix"
    packages = {"timm": download(TIMM, work), "transformers": download(TRANSFORMERS, work)}
    folders = list(packages.values()) if options.full else make_slice(packages, work)
    corpus = os.pathsep.join(str(folder) for folder in folders)
    print(f"export TORCHCHECK_TORCHFIX={shlex.quote(str(torchfix))}")
    print(f"export TORCHCHECK_PARITY_CORPUS={shlex.quote(corpus)}")


if __name__ == "__main__":
    main()
