import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from metrics import accuracy


def main():
    x = torch.randn(2048, 32)
    y = torch.randint(0, 10, (2048,))
    train_loader = DataLoader(TensorDataset(x[:1792], y[:1792]), batch_size=64, shuffle=True)
    valid_loader = DataLoader(TensorDataset(x[1792:], y[1792:]), batch_size=64)
    model = nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()

    for epoch in range(5):
        model.train()
        for xb, yb in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
        model.eval()
        top1 = top3 = 0.0
        with torch.no_grad():
            for xb, yb in valid_loader:
                acc1, acc3 = accuracy(model(xb), yb, topk=(1, 3))
                top1 += acc1.item() * len(yb)
                top3 += acc3.item() * len(yb)
        n = len(valid_loader.dataset)
        print(f"epoch {epoch}: acc@1 {top1 / n:.3f} acc@3 {top3 / n:.3f}")


if __name__ == "__main__":
    main()
