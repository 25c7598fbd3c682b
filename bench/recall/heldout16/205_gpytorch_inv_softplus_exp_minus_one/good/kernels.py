import math

import torch
from torch import nn

from transforms import TRANSFORM_PAIRS


class Positive(nn.Module):
    """Constraint that maps an unconstrained raw parameter to (0, inf)."""

    def __init__(self, transform="softplus"):
        super().__init__()
        self._transform, self._inv_transform = TRANSFORM_PAIRS[transform]

    def transform(self, raw):
        return self._transform(raw)

    def inverse_transform(self, value):
        return self._inv_transform(value)


class RBFKernel(nn.Module):
    def __init__(self, lengthscale=1.0, outputscale=1.0):
        super().__init__()
        self.lengthscale_constraint = Positive()
        self.outputscale_constraint = Positive()
        self.raw_lengthscale = nn.Parameter(torch.zeros(1))
        self.raw_outputscale = nn.Parameter(torch.zeros(1))
        self.initialize(lengthscale, outputscale)

    @property
    def lengthscale(self):
        return self.lengthscale_constraint.transform(self.raw_lengthscale)

    @property
    def outputscale(self):
        return self.outputscale_constraint.transform(self.raw_outputscale)

    def initialize(self, lengthscale, outputscale):
        with torch.no_grad():
            ls = torch.as_tensor(lengthscale, dtype=self.raw_lengthscale.dtype)
            os_ = torch.as_tensor(outputscale, dtype=self.raw_outputscale.dtype)
            self.raw_lengthscale.copy_(self.lengthscale_constraint.inverse_transform(ls))
            self.raw_outputscale.copy_(self.outputscale_constraint.inverse_transform(os_))

    def forward(self, x1, x2):
        dist = torch.cdist(x1 / self.lengthscale, x2 / self.lengthscale).pow(2)
        return self.outputscale * torch.exp(-0.5 * dist)


class ExactGP(nn.Module):
    def __init__(self, train_x, train_y, lengthscale=1.0):
        super().__init__()
        self.train_x = nn.Parameter(train_x, requires_grad=False)
        self.train_y = nn.Parameter(train_y, requires_grad=False)
        self.kernel = RBFKernel(lengthscale=lengthscale)
        self.noise_constraint = Positive()
        self.raw_noise = nn.Parameter(self.noise_constraint.inverse_transform(torch.tensor([1e-2])))

    def neg_mll(self):
        n = self.train_x.shape[0]
        noise = self.noise_constraint.transform(self.raw_noise)
        K = self.kernel(self.train_x, self.train_x) + noise * torch.eye(n)
        L = torch.linalg.cholesky(K)
        alpha = torch.cholesky_solve(self.train_y.unsqueeze(-1), L)
        data_fit = 0.5 * (self.train_y.unsqueeze(-1) * alpha).sum()
        complexity = torch.log(torch.diagonal(L)).sum()
        return (data_fit + complexity + 0.5 * n * math.log(2 * math.pi)) / n
