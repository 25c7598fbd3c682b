import random

import torch
from torch.utils.data import Dataset, Sampler


class lmdbDataset(Dataset):
    def __init__(self, root=None):
        self.root = root
        self.n = 1000

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        return torch.zeros(1, 32, 100), "label"


class randomSequentialSampler(Sampler):
    def __init__(self, data_source, batch_size):
        self.num_samples = len(data_source)
        self.batch_size = batch_size

    def __iter__(self):
        n_batch = len(self) // self.batch_size
        index = []
        for _ in range(n_batch):
            start = random.randint(0, len(self) - self.batch_size)
            index.extend(range(start, start + self.batch_size))
        return iter(index)

    def __len__(self):
        return self.num_samples


class alignCollate:
    def __init__(self, imgH=32, imgW=100, keep_ratio=False):
        self.imgH, self.imgW, self.keep_ratio = imgH, imgW, keep_ratio

    def __call__(self, batch):
        images, labels = zip(*batch)
        return torch.stack(images), labels
