import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset
from torchvision import datasets

from model import SiameseNetwork


class PairDataset(Dataset):
    """Returns (image_1, image_2, same_class) pairs drawn from MNIST."""

    def __init__(self, root, train):
        self.dataset = datasets.MNIST(root, train=train, download=True)
        self.data = self.dataset.data.unsqueeze(1).float().div(255.0)
        self.targets = self.dataset.targets

    def __len__(self):
        return len(self.data)

    def __getitem__(self, index):
        other = torch.randint(len(self.data), (1,)).item()
        same = (self.targets[index] == self.targets[other]).float()
        return self.data[index], self.data[other], same.unsqueeze(0)


def train(model, device, loader, optimizer, criterion):
    model.train()
    for images_1, images_2, targets in loader:
        images_1, images_2, targets = images_1.to(device), images_2.to(device), targets.to(device)
        optimizer.zero_grad()
        logits = model(images_1, images_2)
        loss = criterion(logits, targets)
        loss.backward()
        optimizer.step()
    return loss.item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lr", type=float, default=1.0)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    loader = DataLoader(PairDataset("../data", train=True), batch_size=64, shuffle=True, num_workers=2)
    model = SiameseNetwork().to(device)
    optimizer = torch.optim.Adadelta(model.parameters(), lr=args.lr)
    criterion = nn.BCEWithLogitsLoss()
    for epoch in range(args.epochs):
        print(epoch, train(model, device, loader, optimizer, criterion))
    torch.save(model.state_dict(), "siamese_network.pt")


if __name__ == "__main__":
    main()
