import os

import tensorboardX
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torchvision import datasets, transforms

from l0module import L0Conv2d, L0Linear
from trainer import Trainer


def get_loader(batch_size):
    root = os.path.expanduser("~/.torch/data/mnist")
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    train_loader = torch.utils.data.DataLoader(datasets.MNIST(root, train=True, download=True, transform=tf),
                                               shuffle=True, batch_size=batch_size)
    test_loader = torch.utils.data.DataLoader(datasets.MNIST(root, train=False, transform=tf), batch_size=batch_size)
    return train_loader, test_loader


class L0Net(nn.Module):
    """LeNet whose layers carry hard-concrete gates; forward also returns the expected L0 norm."""

    def __init__(self, mean):
        super().__init__()
        self.conv1 = L0Conv2d(1, 20, kernel_size=5, stride=1, loc_mean=mean)
        self.conv2 = L0Conv2d(20, 50, kernel_size=5, stride=1, loc_mean=mean)
        self.fc1 = L0Linear(800, 500, loc_mean=mean)
        self.fc2 = L0Linear(500, 10, loc_mean=mean)

    def forward(self, x):
        x, pen1 = self.conv1(x)
        x = F.max_pool2d(x, 2, stride=2)
        x, pen2 = self.conv2(x)
        x = F.max_pool2d(x, 2, stride=2)
        x, pen3 = self.fc1(x.flatten(1))
        x, pen4 = self.fc2(F.relu(x))
        return x, pen1 + pen2 + pen3 + pen4


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 20, kernel_size=5, stride=1)
        self.conv2 = nn.Conv2d(20, 50, kernel_size=5, stride=1)
        self.fc1 = nn.Linear(800, 500)
        self.fc2 = nn.Linear(500, 10)

    def forward(self, x):
        x = F.max_pool2d(self.conv1(x), 2, stride=2)
        x = F.max_pool2d(self.conv2(x), 2, stride=2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


def main(epochs, batch_size, coef, mean, baseline):
    train_loader, test_loader = get_loader(batch_size)
    logger = tensorboardX.SummaryWriter()
    model = LeNet() if baseline else L0Net(mean)
    model.cuda()
    optimizer = optim.Adam(params=model.parameters(), lr=1e-3)

    def l0_loss(output, target):
        return F.cross_entropy(output[0], target) + coef / len(train_loader.dataset) * output[1]

    trainer = Trainer(model, optimizer, F.cross_entropy if baseline else l0_loss, logger)
    if not baseline:
        trainer.correct = lambda output, target: (output[0].max(dim=1)[1] == target).sum().item()
    trainer.start(epochs, train_loader, test_loader)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--batch_size", type=int, default=128)
    parser.add_argument("--epochs", type=int, default=200)
    parser.add_argument("--coef", type=float, default=1e-1)
    parser.add_argument("--mean", type=float, default=1)
    parser.add_argument("--baseline", action="store_true")
    main(**vars(parser.parse_args()))
