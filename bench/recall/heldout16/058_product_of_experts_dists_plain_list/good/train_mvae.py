import torch
import torch.nn.functional as F
from torch import nn

from distributions import Normal, NormalPoE


def main(steps=2000, z_dim=32, device="cuda"):
    q_x = Normal(["z"], ["x"], 784, z_dim)
    q_y = Normal(["z"], ["y"], 10, z_dim)
    poe = NormalPoE(torch.zeros(1, z_dim), torch.ones(1, z_dim), [q_x, q_y]).to(device)
    dec_x = nn.Sequential(nn.Linear(z_dim, 256), nn.ReLU(), nn.Linear(256, 784)).to(device)
    dec_y = nn.Linear(z_dim, 10).to(device)
    params = list(poe.parameters()) + list(dec_x.parameters()) + list(dec_y.parameters())
    optimizer = torch.optim.Adam(params, lr=1e-3)
    for step in range(steps):
        x = torch.rand(64, 784, device=device)
        y = F.one_hot(torch.randint(0, 10, (64,), device=device), 10).float()
        q = poe({"x": x, "y": y})
        z = q.rsample()
        recon = F.binary_cross_entropy_with_logits(dec_x(z), x, reduction="sum")
        recon = recon + F.cross_entropy(dec_y(z), y.argmax(dim=1), reduction="sum")
        kl = torch.distributions.kl_divergence(q, torch.distributions.Normal(0.0, 1.0)).sum()
        loss = (recon + kl) / x.shape[0]
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
