import random

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

from sparse_warp import time_warp


class SpectrogramDataset(Dataset):
    def __init__(self, n_items=64, freq=40, time=120, n_classes=10, augment=True):
        self.specs = torch.randn(n_items, freq, time)
        self.labels = torch.randint(0, n_classes, (n_items,))
        self.augment = augment

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        spec = self.specs[idx]
        if self.augment:
            spec = time_warp(spec, shift=random.uniform(-5.0, 5.0))
        return spec, self.labels[idx]


class SpeechClassifier(nn.Module):
    def __init__(self, freq=40, n_classes=10):
        super().__init__()
        self.rnn = nn.GRU(freq, 64, batch_first=True)
        self.head = nn.Linear(64, n_classes)

    def forward(self, spec):
        out, _ = self.rnn(spec.transpose(1, 2))
        return self.head(out[:, -1])


def main():
    model = SpeechClassifier()
    loader = DataLoader(SpectrogramDataset(), batch_size=8, shuffle=True)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    model.train()
    for epoch in range(2):
        for spec, label in loader:
            optimizer.zero_grad()
            loss = criterion(model(spec), label)
            loss.backward()
            optimizer.step()
        print(epoch, loss.item())


if __name__ == "__main__":
    main()
