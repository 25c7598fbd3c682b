"""Compare torchcheck with TorchFix on real code and print the table for the migration notes.

    python bench/torchfix_parity.py              # timm + all of transformers (TorchFix takes ~20 min)
    python bench/torchfix_parity.py --quick      # timm + the CI slice of transformers

For every TorchFix finding: matched by torchcheck at the same line, judged a TorchFix false
positive (and then not reproduced), or missed. Also lists what torchcheck's parity rules
report that TorchFix does not.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from common import WORK, download, torchfix_python
from parity_setup import TIMM, TRANSFORMERS, _slice

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.parity.torchfix import compare, run_torchcheck, run_torchfix  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="only the CI slice of transformers")
    options = parser.parse_args()
    torchfix = torchfix_python().parent / "torchfix"
    transformers = download(TRANSFORMERS)
    if options.quick:
        transformers = _slice(transformers, WORK / "transformers-slice")
    for folder in (download(TIMM), transformers):
        started = time.perf_counter()
        theirs = run_torchfix(str(torchfix), [folder])
        torchfix_seconds = time.perf_counter() - started
        started = time.perf_counter()
        ours = run_torchcheck([folder])
        torchcheck_seconds = time.perf_counter() - started
        result = compare(theirs, ours)
        print(f"\n## {folder.name}: TorchFix {torchfix_seconds:.1f} s, torchcheck --select ALL {torchcheck_seconds:.1f} s\n")
        print(result.table(theirs))
        for finding, reason in result.false_positives:
            print(f"- TorchFix false positive {finding.code} {finding.path}:{finding.row}: {reason}")
        for finding in result.missed:
            print(f"- MISSED {finding.code} {finding.path}:{finding.row}")
        if result.torchcheck_only:
            print(f"- reported by torchcheck only: {dict(sorted(result.torchcheck_only.items()))}")


if __name__ == "__main__":
    main()
