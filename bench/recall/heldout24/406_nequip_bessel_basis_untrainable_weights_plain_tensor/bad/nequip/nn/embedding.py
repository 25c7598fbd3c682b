import torch
from torch import nn

from .radial_basis import BesselBasis


class PolynomialCutoff(nn.Module):
    def __init__(self, r_max, p=6.0):
        super().__init__()
        self.r_max = float(r_max)
        self.p = float(p)

    def forward(self, x):
        x = x / self.r_max
        p = self.p
        out = 1.0 - ((p + 1.0) * (p + 2.0) / 2.0) * x.pow(p) \
            + p * (p + 2.0) * x.pow(p + 1.0) - (p * (p + 1.0) / 2.0) * x.pow(p + 2.0)
        return out * (x < 1.0)


class RadialBasisEdgeEncoding(nn.Module):
    """Embeds every edge length with a (cut-off) radial basis."""

    def __init__(self, r_max, num_basis=8, trainable_basis=True, polynomial_p=6.0):
        super().__init__()
        self.basis = BesselBasis(r_max=r_max, num_basis=num_basis, trainable=trainable_basis)
        self.cutoff = PolynomialCutoff(r_max=r_max, p=polynomial_p)

    def forward(self, pos, edge_index):
        edge_vec = pos[edge_index[1]] - pos[edge_index[0]]
        edge_length = torch.linalg.norm(edge_vec, dim=-1)
        return self.basis(edge_length) * self.cutoff(edge_length)[:, None]
