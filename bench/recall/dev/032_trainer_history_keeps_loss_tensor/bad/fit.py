import torch
from torch import nn


def fit(model, loader, criterion, optimizer, epochs):
    losses = []
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            losses.append(loss)  # expect: TCK101
    return losses


net = nn.Linear(12, 3)
data = [(torch.randn(4, 12), torch.randint(0, 3, (4,))) for _ in range(5)]
fit(net, data, nn.CrossEntropyLoss(), torch.optim.SGD(net.parameters(), lr=0.1), 3)
