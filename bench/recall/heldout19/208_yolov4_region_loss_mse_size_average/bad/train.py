import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from region_loss import RegionLoss


class TinyYolo(nn.Module):
    def __init__(self, num_classes=20, num_anchors=3):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.LeakyReLU(0.1), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.LeakyReLU(0.1), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.LeakyReLU(0.1), nn.MaxPool2d(2),
        )
        self.head = nn.Conv2d(64, num_anchors * (5 + num_classes), 1)

    def forward(self, x):
        return self.head(self.features(x))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="voc_train.pt")
    parser.add_argument("--epochs", type=int, default=100)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    images, targets = torch.load(args.data, weights_only=True)
    loader = DataLoader(TensorDataset(images, targets), batch_size=16, shuffle=True, num_workers=4)
    model = TinyYolo().to(device)
    criterion = RegionLoss().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9, weight_decay=5e-4)
    for epoch in range(args.epochs):
        model.train()
        for imgs, tgts in loader:
            imgs, tgts = imgs.to(device), tgts.to(device)
            optimizer.zero_grad()
            loss = criterion(model(imgs), tgts)
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.3f}")
        torch.save(model.state_dict(), f"yolov4_tiny_{epoch}.pth")


if __name__ == "__main__":
    main()
