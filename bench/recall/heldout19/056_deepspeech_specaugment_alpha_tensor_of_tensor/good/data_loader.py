import torch
from torch.utils.data import DataLoader, Dataset

from sparse_image_warp import time_warp


class SpectrogramDataset(Dataset):
    def __init__(self, n_items=256, n_freq=161, n_frames=200, spec_augment=True):
        self.items = [torch.randn(1, n_freq, n_frames) for _ in range(n_items)]
        self.labels = [torch.randint(1, 29, (30,)) for _ in range(n_items)]
        self.spec_augment = spec_augment

    def __len__(self):
        return len(self.items)

    def __getitem__(self, index):
        spect = self.items[index]
        if self.spec_augment:
            spect = time_warp(spect)
        return spect.squeeze(0), self.labels[index]


if __name__ == "__main__":
    loader = DataLoader(SpectrogramDataset(), batch_size=16, shuffle=True)
    for spects, labels in loader:
        print(spects.shape, labels.shape)
        break
