import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

from detection_utils import DetectionCollateFN


class RandomBoxes(Dataset):
    def __init__(self, n=64, size=320, num_classes=5):
        self.n, self.size, self.num_classes = n, size, num_classes
        self.counts = [1 + i % 4 for i in range(n)]

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        image = torch.rand(3, self.size, self.size)
        k = self.counts[idx]
        classes = torch.randint(0, self.num_classes, (k, 1)).float()
        boxes = torch.rand(k, 4) * 0.5 + 0.25
        return image, torch.cat([classes, boxes], dim=1)


class TinyDetector(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, stride=4, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(16, num_classes + 4)

    def forward(self, x):
        return self.head(self.backbone(x).flatten(1))


def main():
    loader = DataLoader(RandomBoxes(), batch_size=8, shuffle=True, collate_fn=DetectionCollateFN())
    model = TinyDetector()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for images, targets in loader:
        out = model(images)
        first = targets[targets[:, 0] == 0][0]  # every image has at least one box
        loss = nn.functional.mse_loss(out[0, -4:], first[2:])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print("last loss", loss.item())


if __name__ == "__main__":
    main()
