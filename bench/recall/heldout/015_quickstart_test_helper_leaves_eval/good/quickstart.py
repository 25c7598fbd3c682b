import torch
from torch import nn

device = "cuda" if torch.cuda.is_available() else "cpu"


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.stack = nn.Sequential(nn.Linear(28 * 28, 512), nn.ReLU(), nn.Dropout(0.2), nn.Linear(512, 10))

    def forward(self, x):
        return self.stack(self.flatten(x))


def test(dataloader, model, loss_fn):
    model.eval()
    test_loss = 0.0
    with torch.no_grad():
        for X, y in dataloader:
            X, y = X.to(device), y.to(device)
            test_loss += loss_fn(model(X), y).item()
    return test_loss / len(dataloader)


def train(dataloader, model, loss_fn, optimizer):
    model.train()
    for X, y in dataloader:
        X, y = X.to(device), y.to(device)
        loss = loss_fn(model(X), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


def main(train_dataloader, test_dataloader, epochs=5):
    model = NeuralNetwork().to(device)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    for t in range(epochs):
        train(train_dataloader, model, loss_fn, optimizer)
        print(f"epoch {t + 1}: test loss {test(test_dataloader, model, loss_fn):.4f}")
