import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from trainer import train, validate


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--gpu", type=int, default=None)
    parser.add_argument("--print-freq", dest="print_freq", type=int, default=10)
    args = parser.parse_args()

    data = TensorDataset(torch.randn(512, 3, 32, 32), torch.randint(0, 10, (512,)))
    train_loader = DataLoader(data, batch_size=64, shuffle=True)
    val_loader = DataLoader(data, batch_size=64)
    model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))
    if args.gpu is not None:
        model = model.cuda(args.gpu)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for epoch in range(args.epochs):
        train(train_loader, model, criterion, optimizer, epoch, args)
        print("val acc@1", validate(val_loader, model, criterion, args))


if __name__ == "__main__":
    main()
