"""Everything TorchFix reports that is true, torchcheck reports at the same line; what TorchFix
gets wrong (keywords supplied by ``**kwargs``, try/except fallback imports), it does not.

Needs TorchFix: ``TORCHCHECK_TORCHFIX`` names its executable (``.ci/run`` installs it in a
separate environment, because it pins an older libcst). ``TORCHCHECK_PARITY_CORPUS`` adds
folders of real code (``.ci/run`` compares on the files of timm and transformers where TorchFix
reports something: bench/torchfix_parity_files.txt); the bundled fixtures are always compared.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.parity.torchfix import NOT_PORTED, Comparison, Finding, compare, run_torchcheck, run_torchfix

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = [ROOT / "fixtures" / "lint", ROOT / "fixtures" / "parity"]
TORCHFIX = os.environ.get("TORCHCHECK_TORCHFIX")
CORPUS = [Path(folder) for folder in os.environ.get("TORCHCHECK_PARITY_CORPUS", "").split(os.pathsep) if folder]

pytestmark = pytest.mark.skipif(
    not TORCHFIX,
    reason="TorchFix is not installed: set TORCHCHECK_TORCHFIX to a torchfix executable (.ci/run installs one)",
)


def _describe(findings: list[Finding]) -> str:
    return "\n".join(f"{finding.path}:{finding.row}:{finding.column}: {finding.code}" for finding in findings)


def _compare(paths: list[Path]) -> tuple[list[Finding], Comparison]:
    missing = [path for path in paths if not path.is_dir()]
    assert not missing, f"corpus folders do not exist: {missing}"
    torchfix = run_torchfix(TORCHFIX, paths)
    return torchfix, compare(torchfix, run_torchcheck(paths))


# One test per corpus (not one per assertion): TorchFix is slow, and under pytest-xdist a
# shared fixture would run it once per worker.
@pytest.mark.starts_first
@pytest.mark.parametrize("corpus", ["real code", "fixtures"])
def test_torchcheck_reports_every_true_torchfix_finding_and_none_of_its_false_ones(corpus: str) -> None:
    paths = FIXTURES if corpus == "fixtures" else CORPUS
    if not paths:
        pytest.skip("no real code to compare on: set TORCHCHECK_PARITY_CORPUS (.ci/run downloads timm and transformers)")
    torchfix, result = _compare(paths)
    assert torchfix, "TorchFix reported nothing: the comparison would prove nothing"
    assert not result.missed, f"torchcheck misses these TorchFix findings:\n{_describe(result.missed)}\n{result.table(torchfix)}"
    assert not result.reproduced_false_positives, (
        f"torchcheck repeats TorchFix's false positives:\n{_describe(result.reproduced_false_positives)}"
    )
    unported = {finding.code for finding in result.not_ported} - set(NOT_PORTED)
    assert not unported, f"TorchFix codes with no torchcheck rule: {sorted(unported)}"
