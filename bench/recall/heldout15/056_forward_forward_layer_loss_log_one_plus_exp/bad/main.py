import argparse

import torch
from torch.utils.data import DataLoader
from torchvision.datasets import MNIST
from torchvision.transforms import Compose, Lambda, Normalize, ToTensor

from ff_model import FFNet, overlay_label


def random_wrong_labels(y):
    offset = torch.randint(1, 10, y.shape, device=y.device)
    return (y + offset) % 10


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1000)
    parser.add_argument("--lr", type=float, default=0.03)
    parser.add_argument("--threshold", type=float, default=2.0)
    parser.add_argument("--train_size", type=int, default=50000)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    transform = Compose([ToTensor(), Normalize((0.1307,), (0.3081,)), Lambda(lambda x: torch.flatten(x))])
    train_set = MNIST("./data", train=True, download=True, transform=transform)
    loader = DataLoader(train_set, batch_size=args.train_size, shuffle=True, num_workers=4)

    net = FFNet([784, 500, 500], lr=args.lr, threshold=args.threshold, num_epochs=args.epochs).to(device)
    x, y = next(iter(loader))
    x, y = x.to(device), y.to(device)
    x_pos = overlay_label(x, y)
    x_neg = overlay_label(x, random_wrong_labels(y))
    net.fit(x_pos, x_neg)
    print("train error:", 1.0 - net.predict(x).eq(y).float().mean().item())


if __name__ == "__main__":
    main()
