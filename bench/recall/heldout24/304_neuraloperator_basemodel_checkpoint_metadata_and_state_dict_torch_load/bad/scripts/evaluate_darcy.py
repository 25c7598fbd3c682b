"""Rebuild a trained FNO from its checkpoint folder and evaluate it on Darcy flow."""
import argparse

import torch

from neuralop.data.datasets import load_darcy_flow_small
from neuralop.losses import LpLoss
from neuralop.models import FNO


@torch.no_grad()
def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--checkpoint_dir", default="checkpoints/darcy")
    parser.add_argument("--name", default="fno")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = FNO.from_checkpoint(args.checkpoint_dir, args.name, map_location=device).to(device).eval()
    _, test_loaders, data_processor = load_darcy_flow_small(n_train=10, batch_size=8, test_resolutions=[32],
                                                            n_tests=[50], test_batch_sizes=[8])
    l2 = LpLoss(d=2, p=2)
    total, count = 0.0, 0
    for sample in test_loaders[32]:
        sample = data_processor.preprocess(sample)
        out, sample = data_processor.postprocess(model(**sample), sample)
        total += l2(out, **sample).item()
        count += sample["y"].size(0)
    print(f"relative L2 error: {total / count:.4f}")


if __name__ == "__main__":
    main()
