import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from trainer import HardestContrastiveTrainer


class PairDataset(Dataset):
    """Pairs of overlapping point clouds with known correspondences."""

    def __init__(self, n_pairs=200, n_points=1024):
        self.n_pairs = n_pairs
        self.n_points = n_points

    def __len__(self):
        return self.n_pairs

    def __getitem__(self, idx):
        rng = np.random.default_rng(idx)
        xyz0 = rng.uniform(-1, 1, size=(self.n_points, 3)).astype(np.float32)
        angle = rng.uniform(0, np.pi / 4)
        rot = np.array([[np.cos(angle), -np.sin(angle), 0], [np.sin(angle), np.cos(angle), 0], [0, 0, 1]], np.float32)
        xyz1 = xyz0 @ rot.T + rng.normal(0, 0.01, size=xyz0.shape).astype(np.float32)
        pairs = np.stack([np.arange(self.n_points), np.arange(self.n_points)], axis=1)
        return {
            "xyz0": torch.from_numpy(xyz0),
            "xyz1": torch.from_numpy(xyz1),
            "feats0": torch.ones(self.n_points, 1),
            "feats1": torch.ones(self.n_points, 1),
            "pairs": torch.from_numpy(pairs),
        }


def main():
    config = {
        "feat_dim": 32,
        "lr": 0.1,
        "max_epoch": 100,
        "val_max_iter": 40,
        "pos_thresh": 0.1,
        "neg_thresh": 1.4,
    }
    train_loader = DataLoader(PairDataset(800), batch_size=1, shuffle=True, num_workers=4)
    val_loader = DataLoader(PairDataset(100), batch_size=1, shuffle=False, num_workers=2)
    HardestContrastiveTrainer(config, train_loader, val_loader).train()


if __name__ == "__main__":
    main()
