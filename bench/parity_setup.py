"""Prepare the TorchFix parity test: TorchFix in its own environment and real code to compare on.

    eval "$(python bench/parity_setup.py)"        # what .ci/run does
    eval "$(python bench/parity_setup.py --full)" # all of transformers (slow: ~20 min of TorchFix)

Prints the ``export`` lines that point the parity test at them. Downloads wheels with
``pip download --no-deps`` into ``.cache/parity/`` of this checkout (git-ignored and never
shared with another checkout; a DEST argument puts them elsewhere). By default transformers
is compared on a fixed slice (the top-level modules and the model folders listed below) so CI
stays short.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
from pathlib import Path

from common import download, torchfix_python

DEFAULT_DESTINATION = Path(__file__).resolve().parents[1] / ".cache" / "parity"
TIMM = "timm==1.0.31"
TRANSFORMERS = "transformers==5.23.0"
# Model folders of transformers 5.23.0 compared in CI: every folder where TorchFix reports
# something (found by a full run: `bench/torchfix_parity.py`), plus two widely copied models.
TRANSFORMERS_MODELS = (
    "bert", "clvp", "dbrx", "glm5_next", "grounding_dino", "kimi_linear", "llama", "ministral3", "mistral4",
    "mm_grounding_dino", "pp_doclayout_v2",
)


def _slice(transformers: Path, destination: Path) -> Path:
    """Top-level modules and the listed model folders, with their relative paths kept."""
    if destination.exists():
        return destination
    for source in sorted(transformers.glob("*.py")):
        target = destination / source.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    for model in TRANSFORMERS_MODELS:
        shutil.copytree(transformers / "models" / model, destination / "models" / model)
    return destination


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("destination", nargs="?", type=Path, default=DEFAULT_DESTINATION)
    parser.add_argument("--full", action="store_true", help="compare on all of transformers")
    options = parser.parse_args()
    work = options.destination.resolve()
    torchfix = torchfix_python(work / "torchfix-venv").parent / "torchfix"
    timm = download(TIMM, work)
    transformers = download(TRANSFORMERS, work)
    if not options.full:
        transformers = _slice(transformers, work / "transformers-slice")
    corpus = os.pathsep.join(str(folder) for folder in (timm, transformers))
    print(f"export TORCHCHECK_TORCHFIX={shlex.quote(str(torchfix))}")
    print(f"export TORCHCHECK_PARITY_CORPUS={shlex.quote(corpus)}")


if __name__ == "__main__":
    main()
