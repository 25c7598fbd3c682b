import numpy as np
import torch
from torch.utils.data import Dataset


class Feeder(Dataset):
    def __init__(self, num_samples=512, num_class=60, frames=64, joints=25, persons=2, seed=0):
        rng = np.random.default_rng(seed)
        self.data = rng.standard_normal((num_samples, 3, frames, joints, persons)).astype(np.float32)
        self.label = rng.integers(0, num_class, num_samples)

    def __len__(self):
        return len(self.label)

    def __getitem__(self, index):
        return torch.from_numpy(self.data[index]), int(self.label[index]), index
