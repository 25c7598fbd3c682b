import torch
from torch.utils.data import DataLoader, TensorDataset

from layers import AnfisNet


def train_hybrid(model, loader, epochs=50, lr=1e-3):
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    criterion = torch.nn.MSELoss()
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        x_all, y_all = loader.dataset.tensors
        model.fit_coeff(x_all, y_all)
        print(f"epoch {epoch}: loss {loss.item():.4f}")


if __name__ == "__main__":
    x = torch.rand(256, 2) * 4 - 2
    y = torch.sin(x[:, :1]) * torch.cos(x[:, 1:])
    loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
    train_hybrid(AnfisNet(n_in=2, n_rules=9, n_out=1), loader)
