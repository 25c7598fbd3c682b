"""How far training curves move between runs that a golden tolerance must absorb.

Trains the example project's classifier (``fixtures/example_project``) for 20 steps with
:func:`torchcheck.run_training` on every available device and prints, for the loss and
the gradient norm, the largest relative difference over the steps between:

- two runs on the same device (run to run: 0 where training is deterministic);
- a run with TF32 on and one with it off (CUDA only);
- each device and cpu (same seed, same data: the cross-device envelope).

    python bench/golden_envelope.py [--steps 20]

These are the figures behind the per-key tolerances of golden curves (docs/golden.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

import torchcheck as tc

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "fixtures" / "example_project"))
from tinyproject.model import Classifier  # noqa: E402
from tinyproject.train import make_optimizer, train_step  # noqa: E402

COLUMNS = ("loss", "grad_norm")


def batches(steps: int, distinct: int = 4) -> list[tuple[torch.Tensor, torch.Tensor]]:
    generator = torch.Generator().manual_seed(0)
    data = [
        (torch.randint(0, 100, (8, 16), generator=generator), torch.randint(0, 3, (8,), generator=generator))
        for _ in range(distinct)
    ]
    return [data[step % distinct] for step in range(steps)]


def curve(device: torch.device, steps: int, tf32: bool = False) -> tc.TrainingCurve:
    return tc.run_training(Classifier, make_optimizer, train_step, batches(steps), device=device, tf32=tf32)


def largest_relative(a: tc.TrainingCurve, b: tc.TrainingCurve, column: str) -> float:
    pairs = zip(a.column(column), b.column(column))
    return max(abs(x - y) / max(abs(y), 1e-12) for x, y in pairs if x is not None and y is not None)


def row(label: str, a: tc.TrainingCurve, b: tc.TrainingCurve) -> str:
    return f"| {label} | " + " | ".join(f"{largest_relative(a, b, column):.3g}" for column in COLUMNS) + " |"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    steps = parser.parse_args(argv).steps
    print(f"torch {torch.__version__}; {steps} steps of the example classifier\n")
    print("| comparison | loss | grad_norm |")
    print("|---|---|---|")
    cpu = torch.device("cpu")
    reference = curve(cpu, steps)
    print(row("cpu run to run", curve(cpu, steps), reference))
    for device in tc.available_devices():
        if device.type == "cpu":
            continue
        first = curve(device, steps)
        print(row(f"{device} run to run", curve(device, steps), first))
        if device.type == "cuda":
            print(row(f"{device} TF32 on vs off", curve(device, steps, tf32=True), first))
        print(row(f"{device} vs cpu", first, reference))
    return 0


if __name__ == "__main__":
    sys.exit(main())
