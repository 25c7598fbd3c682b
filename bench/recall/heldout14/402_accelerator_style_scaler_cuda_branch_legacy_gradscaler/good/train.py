import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from mixed_precision import PrecisionPlugin


class Regressor(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 256), nn.GELU(), nn.Linear(256, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def main():
    backend = "cuda" if torch.cuda.is_available() else "cpu"
    plugin = PrecisionPlugin(backend=backend, fp16=backend == "cuda", init_scale=2.0**14)
    model = Regressor().to(backend)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    data = TensorDataset(torch.randn(1024, 64), torch.randn(1024))
    loader = DataLoader(data, batch_size=128, shuffle=True)

    for epoch in range(3):
        for x, y in loader:
            x, y = x.to(backend), y.to(backend)
            optimizer.zero_grad()
            with plugin.autocast():
                loss = F.mse_loss(model(x), y)
            plugin.backward(loss)
            plugin.step(optimizer)
        print(epoch, loss.item())


if __name__ == "__main__":
    main()
