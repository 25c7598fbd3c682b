import torch
from torch.utils.data import Dataset


class RandomRegressionSet(Dataset):
    """Toy regression data: 20 features, one target."""

    def __init__(self, size):
        self.size = size
        self.samples = [(torch.rand(20), torch.rand(1)) for _ in range(size)]

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        return self.samples[index]
