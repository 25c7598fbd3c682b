import argparse
import random

import numpy as np
import torch

from torch import nn
from torch.utils.data import Dataset

import dist_utils
from runner import Runner


class ImageTextPairs(Dataset):
    def __init__(self, size=512, dim=256):
        self.images = torch.randn(size, dim)
        self.texts = torch.randn(size, dim)

    def __len__(self):
        return self.images.shape[0]

    def __getitem__(self, idx):
        return {"image": self.images[idx], "text": self.texts[idx]}


class ContrastivePretrain(nn.Module):
    def __init__(self, dim=256, embed=128):
        super().__init__()
        self.vision_proj = nn.Linear(dim, embed)
        self.text_proj = nn.Linear(dim, embed)
        self.temp = nn.Parameter(torch.tensor(0.07))

    def forward(self, samples):
        img = nn.functional.normalize(self.vision_proj(samples["image"]), dim=-1)
        txt = nn.functional.normalize(self.text_proj(samples["text"]), dim=-1)
        logits = img @ txt.t() / self.temp
        targets = torch.arange(logits.shape[0], device=logits.device)
        loss = (nn.functional.cross_entropy(logits, targets) + nn.functional.cross_entropy(logits.t(), targets)) / 2
        return {"loss": loss}


class RetrievalTask:
    def evaluation(self, model, dataset):
        batch = dataset[:64]
        device = next(model.parameters()).device
        out = model({k: v.to(device) for k, v in batch.items()})
        return {"agg_metrics": -out["loss"].item()}


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--output_dir", default="output/blip_pretrain")
    parser.add_argument("--max_epoch", type=int, default=10)
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--init_lr", type=float, default=1e-4)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--evaluate_only", action="store_true")
    parser.add_argument("--valid_splits", nargs="*", default=[])
    return parser.parse_args()


def setup_seeds(run_cfg):
    seed = run_cfg.seed + dist_utils.get_rank()
    torch.manual_seed(seed)
    np.random.seed(seed)
    random.seed(seed)


def main():
    run_cfg = parse_args()
    dist_utils.init_distributed_mode(run_cfg)
    setup_seeds(run_cfg)

    task = RetrievalTask()
    datasets = {"train": ImageTextPairs(), "val": ImageTextPairs(size=128)}
    model = ContrastivePretrain()

    runner = Runner(run_cfg, task, model, datasets, run_cfg.output_dir)
    runner.train()


if __name__ == "__main__":
    main()
