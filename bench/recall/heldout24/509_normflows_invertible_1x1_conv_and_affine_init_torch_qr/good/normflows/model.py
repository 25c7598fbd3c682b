import math

import torch
from torch import nn

from .mixing import InvertibleAffine


class AffineCoupling(nn.Module):
    def __init__(self, dim, hidden=64):
        super().__init__()
        self.half = dim // 2
        self.net = nn.Sequential(nn.Linear(self.half, hidden), nn.ReLU(), nn.Linear(hidden, 2 * (dim - self.half)))

    def forward(self, z):
        z1, z2 = z[:, : self.half], z[:, self.half:]
        scale, shift = self.net(z1).chunk(2, dim=1)
        scale = torch.tanh(scale)
        return torch.cat([z1, z2 * torch.exp(scale) + shift], dim=1), scale.sum(dim=1)

    def inverse(self, z):
        z1, z2 = z[:, : self.half], z[:, self.half:]
        scale, shift = self.net(z1).chunk(2, dim=1)
        scale = torch.tanh(scale)
        return torch.cat([z1, (z2 - shift) * torch.exp(-scale)], dim=1), -scale.sum(dim=1)


class RealNVP(nn.Module):
    """Coupling layers interleaved with learned invertible mixing."""

    def __init__(self, dim, num_blocks=4):
        super().__init__()
        layers = []
        for _ in range(num_blocks):
            layers += [AffineCoupling(dim), InvertibleAffine(dim, use_lu=True)]
        self.flows = nn.ModuleList(layers)
        self.dim = dim

    def log_prob(self, x):
        log_q = x.new_zeros(x.shape[0])
        z = x
        for flow in reversed(self.flows):
            z, log_det = flow.inverse(z)
            log_q = log_q + log_det
        return log_q - 0.5 * (z ** 2).sum(dim=1) - 0.5 * self.dim * math.log(2 * math.pi)

    def sample(self, n):
        z = torch.randn(n, self.dim)
        for flow in self.flows:
            z, _ = flow(z)
        return z
