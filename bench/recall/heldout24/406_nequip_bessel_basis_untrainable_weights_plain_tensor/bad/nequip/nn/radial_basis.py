import numpy as np
import torch
from torch import nn


class BesselBasis(nn.Module):
    """Radial Bessel basis of DimeNet: sin(n * pi * r / r_max) / r, n = 1..num_basis."""

    r_max: float
    prefactor: float

    def __init__(self, r_max, num_basis=8, trainable=True):
        super(BesselBasis, self).__init__()
        self.trainable = trainable
        self.num_basis = num_basis
        self.r_max = float(r_max)
        self.prefactor = 2.0 / self.r_max

        self.bessel_weights = torch.linspace(start=1.0, end=num_basis, steps=num_basis) * torch.Tensor([np.pi])  # expect: TCK606

        if self.trainable:
            self.bessel_weights = nn.Parameter(self.bessel_weights)

    def forward(self, x):
        numerator = torch.sin(self.bessel_weights * x.unsqueeze(-1) / self.r_max)
        return self.prefactor * (numerator / x.unsqueeze(-1))
