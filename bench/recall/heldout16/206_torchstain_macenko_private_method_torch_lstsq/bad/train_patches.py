import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

from macenko import MacenkoNormalizer


class HistologyPatches(Dataset):
    """Stain-normalised H&E patches with a tumour / normal label."""

    def __init__(self, patches, labels, target):
        self.patches = patches
        self.labels = labels
        self.normalizer = MacenkoNormalizer()
        self.normalizer.fit(target)

    def __len__(self):
        return len(self.patches)

    def __getitem__(self, idx):
        return self.normalizer.normalize(self.patches[idx]), self.labels[idx]


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    patches = torch.randint(0, 256, (64, 3, 64, 64), dtype=torch.uint8)
    labels = torch.randint(0, 2, (64,))
    dataset = HistologyPatches(patches, labels, target=patches[0])
    loader = DataLoader(dataset, batch_size=16, shuffle=True)

    model = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 2)
    ).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(3):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        print(epoch, loss.item())


if __name__ == "__main__":
    main()
