import torch
from torch.utils.data import DataLoader, Dataset


class RandomSegDataset(Dataset):
    def __init__(self, n=64, num_classes=10, size=64):
        self.images = torch.randn(n, 3, size, size)
        self.masks = torch.randint(0, num_classes, (n, size, size))

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        return {"image": self.images[idx], "mask": self.masks[idx]}


def make_loaders():
    train = DataLoader(RandomSegDataset(), batch_size=8, shuffle=True, num_workers=2)
    val = DataLoader(RandomSegDataset(16), batch_size=8, num_workers=2)
    tests = [DataLoader(RandomSegDataset(16), batch_size=8, num_workers=2) for _ in range(2)]
    return train, val, tests
