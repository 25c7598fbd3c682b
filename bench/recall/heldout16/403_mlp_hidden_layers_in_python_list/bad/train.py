import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from net import DeepMLP


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    features = torch.randn(2048, 32)
    labels = (features.sum(dim=1) > 0).long()
    loader = DataLoader(TensorDataset(features, labels), batch_size=64, shuffle=True)

    model = DeepMLP(32, 128, depth=3, num_classes=2).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()

    for epoch in range(20):
        total = 0.0
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.item()
        print(f"epoch {epoch}: loss {total / len(loader):.4f}")
    torch.save(model.state_dict(), "mlp.pt")


if __name__ == "__main__":
    main()
