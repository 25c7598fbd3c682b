import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.sampler import SubsetRandomSampler


class SpriteDataset(Dataset):
    def __init__(self, path, transform=None):
        self.dset = np.load(path, encoding="bytes")["imgs"]
        self.transform = transform

    def __len__(self):
        return len(self.dset)

    def __getitem__(self, idx):
        sample = self.dset[idx]
        return self.transform(sample) if self.transform else sample


if __name__ == "__main__":
    dset = SpriteDataset("./dsprites.npz", transform=lambda x: x.reshape(-1))
    unlabelled = DataLoader(dset, batch_size=16, shuffle=True, sampler=SubsetRandomSampler(np.arange(len(dset) // 3)))  # expect: TCK801
    for u in unlabelled:
        print(u.shape)
        break
