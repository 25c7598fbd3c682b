import argparse

import torch
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset

from model import EmbeddingClassifier


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--margin", type=int, default=4)
    parser.add_argument("--epochs", type=int, default=5)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    x = torch.randn(2048, 40)
    y = torch.randint(0, 10, (2048,))
    loader = DataLoader(TensorDataset(x, y), batch_size=128, shuffle=True)

    model = EmbeddingClassifier(40, 128, 10, args.margin, device).to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for epoch in range(args.epochs):
        model.train()
        for data, target in loader:
            data, target = data.to(device), target.to(device)
            loss = criterion(model(data, target=target), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(epoch, loss.item())


if __name__ == "__main__":
    main()
