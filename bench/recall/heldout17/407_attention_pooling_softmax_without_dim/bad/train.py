import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from model import SequenceClassifier


def evaluate(model, loader, device):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            correct += (model(x).argmax(dim=1) == y).sum().item()
            total += y.numel()
    model.train()
    return correct / total


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    x = torch.randn(4096, 50, 16)
    y = (x[:, :, 0].mean(dim=1) > 0).long()
    train_loader = DataLoader(TensorDataset(x[:3584], y[:3584]), batch_size=64, shuffle=True)
    val_loader = DataLoader(TensorDataset(x[3584:], y[3584:]), batch_size=256)

    model = SequenceClassifier(n_features=16, hidden_dim=64, n_classes=2).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(20):
        model.train()
        for xb, yb in train_loader:
            xb, yb = xb.to(device), yb.to(device)
            loss = F.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: val acc {evaluate(model, val_loader, device):.3f}")


if __name__ == "__main__":
    main()
