import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from model import FeedForwardNet


def main():
    images = torch.rand(6000, 1, 28, 28)
    labels = torch.randint(0, 10, (6000,))
    loader = DataLoader(TensorDataset(images, labels), batch_size=64, shuffle=True)

    model = FeedForwardNet()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

    for epoch in range(5):
        running = 0.0
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            running += loss.item()
        print(f"epoch {epoch}: {running / len(loader):.4f}")


if __name__ == "__main__":
    main()
