import torch
from torch.utils.data import DataLoader, TensorDataset

from CRU import CRU


def main():
    n, steps, dim = 512, 50, 3
    obs = torch.randn(n, steps, dim)
    valid = torch.rand(n, steps) > 0.5
    times = torch.linspace(0, 1, steps).expand(n, steps).contiguous()
    mask = torch.ones(n, steps, dim)
    dl = DataLoader(TensorDataset(obs, obs.clone(), valid, times, mask), batch_size=50, shuffle=True)
    model = CRU(dim, task="interpolation")
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(100):
        model.train()
        ll, train_rmse, imput_ll = model.train_epoch(dl, optimizer)
        print(f"epoch {epoch}: ll {float(ll):.4f} rmse {train_rmse:.4f} imput {float(imput_ll):.4f}")


if __name__ == "__main__":
    main()
