import torch
from torch.utils.data import DataLoader, TensorDataset

from model import TabularRegressor


def main():
    features = torch.randn(20000, 64)
    targets = features[:, :8].sum(dim=1) + 0.1 * torch.randn(20000)
    train_loader = DataLoader(TensorDataset(features[:16000], targets[:16000]), batch_size=256, shuffle=True)
    val_x, val_y = features[16000:], targets[16000:]

    model = TabularRegressor(64)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(10):
        model.train()
        for x, y in train_loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            val = torch.nn.functional.mse_loss(model(val_x), val_y).item()
        print(f"epoch {epoch}: val mse {val:.4f}")


if __name__ == "__main__":
    main()
