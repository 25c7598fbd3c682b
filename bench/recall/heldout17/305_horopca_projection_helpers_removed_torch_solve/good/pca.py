import argparse

import numpy as np
import torch
from torch import nn

from geometry import horo_projection, orthogonal_projection


class HoroPCA(nn.Module):
    """Learns `n_components` ideal points whose horospherical projection keeps the most variance."""

    def __init__(self, dim, n_components):
        super().__init__()
        self.ideals = nn.Parameter(torch.randn(n_components, dim))

    def forward(self, x):
        ideals = self.ideals / self.ideals.norm(dim=-1, keepdim=True)
        return horo_projection(ideals, x)


def explained_distortion(x, proj):
    d_orig = torch.cdist(x, x)
    d_proj = torch.cdist(proj, proj)
    return ((d_orig - d_proj) ** 2).mean()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--embeddings", default="data/embeddings/smalltree_10_poincare.npy")
    parser.add_argument("--n-components", type=int, default=2)
    parser.add_argument("--lr", type=float, default=5e-2)
    parser.add_argument("--steps", type=int, default=500)
    args = parser.parse_args()

    x = torch.from_numpy(np.load(args.embeddings)).double()
    model = HoroPCA(x.shape[1], args.n_components).double()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    for step in range(args.steps):
        optimizer.zero_grad()
        loss = -model(x).var(dim=0).sum()
        loss.backward()
        optimizer.step()
        if step % 100 == 0:
            print(f"step {step}: variance {-loss.item():.4f}")

    with torch.no_grad():
        proj = model(x)
        basis = torch.eye(x.shape[1] + 1, dtype=x.dtype)[: args.n_components + 1]
        hyperboloid = torch.cat([torch.ones(len(x), 1, dtype=x.dtype), x], dim=1)
        tangent_proj = orthogonal_projection(basis, hyperboloid)
        print("distortion", explained_distortion(x, proj).item(), "tangent", tangent_proj.shape)


if __name__ == "__main__":
    main()
