"""How long do the training-run checks take on the example project's tiny classifier?

    python bench/runtime_speed.py [--device cpu|cuda] [--steps 20] [--backend aot_eager] [--check]

Two of the checks a model repository runs on every pull request, on the classifier of
``fixtures/example_project`` (an embedding, one transformer encoder layer, a linear head),
each timed in this process after ``import torch``:

- a golden-curve test: ``tc.run_training`` for ``--steps`` steps, recorded with
  ``tc.assert_golden_curve(update=True)`` and then compared (target <= 3 s on CPU);
- compile parity: ``tc.assert_compile_parity`` for 2 steps with ``--backend`` (target
  <= 15 s). Dynamo is reset before and after each compiled run, so every call compiles
  from scratch; the first call also pays for importing the compiler, which a test suite
  pays once.

Prints the time of each, its target, and the machine's CPU count and torch version;
``--check`` exits 1 when one of them is over its target.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import torch

import torchcheck as tc

EXAMPLE_PROJECT = Path(__file__).resolve().parents[1] / "fixtures" / "example_project"
sys.path.insert(0, str(EXAMPLE_PROJECT))

from tinyproject.model import Classifier  # noqa: E402  (needs the example project on sys.path)
from tinyproject.train import Batch, make_optimizer, train_step  # noqa: E402

GOLDEN_TARGET_S = 3.0
COMPILE_TARGET_S = 15.0


def make_batches(steps: int) -> list[Batch]:
    generator = torch.Generator().manual_seed(0)
    return [
        (torch.randint(0, 100, (8, 16), generator=generator), torch.randint(0, 3, (8,), generator=generator))
        for _ in range(steps)
    ]


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def golden_curve_test(device: str, steps: int, directory: Path) -> None:
    """What one golden test does: train, then compare with the golden (recorded on the first call)."""
    curve = tc.run_training(Classifier, make_optimizer, train_step, make_batches(steps), device=device)
    tc.assert_golden_curve(curve, directory, update="missing")


def compile_parity_test(device: str, backend: str) -> None:
    tc.assert_compile_parity(Classifier, make_optimizer, train_step, make_batches(2), backend=backend, device=device)


def report(label: str, seconds: float, target: float | None) -> bool:
    within = target is None or seconds <= target
    verdict = "" if target is None else f"   (target <= {target:g} s{'' if within else ': OVER'})"
    print(f"{label:<52} {seconds:7.2f} s{verdict}")
    return within


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cpu", help="device to train on (default cpu)")
    parser.add_argument("--steps", type=int, default=20, help="steps of the golden curve (default 20)")
    parser.add_argument("--backend", default="aot_eager", help="torch.compile backend (default aot_eager)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a time is over its target")
    options = parser.parse_args(argv)

    print(f"torch {torch.__version__}, {os.cpu_count()} CPUs, device {options.device}, backend {options.backend}")
    within = []
    with tempfile.TemporaryDirectory() as temporary:
        golden = Path(temporary) / "golden"
        recording = timed(lambda: golden_curve_test(options.device, options.steps, golden))
        comparing = timed(lambda: golden_curve_test(options.device, options.steps, golden))
    report(f"golden curve, {options.steps} steps: record (first in process)", recording, None)
    within.append(report(f"golden curve, {options.steps} steps: compare", comparing, GOLDEN_TARGET_S))
    first = timed(lambda: compile_parity_test(options.device, options.backend))
    second = timed(lambda: compile_parity_test(options.device, options.backend))
    within.append(report(f"compile parity, {options.backend}, 2 steps: first in process", first, COMPILE_TARGET_S))
    report(f"compile parity, {options.backend}, 2 steps: again", second, None)
    return 0 if all(within) or not options.check else 1


if __name__ == "__main__":
    raise SystemExit(main())
