import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torchvision import datasets, transforms

from ekfac import EKFAC


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 20, 5, 1)
        self.conv2 = nn.Conv2d(20, 15, 5, 1)
        self.fc1 = nn.Linear(4 * 4 * 15, 50)
        self.fc2 = nn.Linear(50, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2, 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2, 2)
        x = F.relu(self.fc1(x.flatten(1)))
        return F.log_softmax(self.fc2(x), dim=1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--eps", type=float, default=0.1)
    parser.add_argument("--update-freq", type=int, default=10)
    args = parser.parse_args()

    loader = torch.utils.data.DataLoader(
        datasets.MNIST("../data", train=True, download=True, transform=transforms.ToTensor()),
        batch_size=64, shuffle=True, num_workers=2)
    model = Net()
    preconditioner = EKFAC(model, eps=args.eps, update_freq=args.update_freq)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)

    model.train()
    for step, (data, target) in enumerate(loader):
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        preconditioner.step()
        optimizer.step()
        if step % 100 == 0:
            print(step, loss.item())


if __name__ == "__main__":
    main()
