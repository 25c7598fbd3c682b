from typing import Optional

import torch
import torch.nn as nn


def gaussian_rbf(d_ij: torch.Tensor, offsets: torch.Tensor, widths: torch.Tensor) -> torch.Tensor:
    coeff = -0.5 / torch.pow(widths, 2)
    diff = d_ij[..., None] - offsets
    return torch.exp(coeff * torch.pow(diff, 2))


class GaussianRBF(nn.Module):
    def __init__(
        self,
        n_rbf: int,
        cutoff: float,
        start: float = 0.0,
        trainable: bool = False,
        dtype: Optional[torch.dtype] = None,
    ):
        super().__init__()
        self.n_rbf = n_rbf
        self.cutoff = cutoff
        offset = torch.linspace(start, cutoff, n_rbf, dtype=dtype)
        widths = torch.tensor(  # expect: TCK704
            torch.abs(offset[1] - offset[0]) * torch.ones_like(offset), dtype=dtype
        )
        if trainable:
            self.widths = nn.Parameter(widths)
            self.offsets = nn.Parameter(offset)
        else:
            self.register_buffer("widths", widths)
            self.register_buffer("offsets", offset)

    def forward(self, d_ij: torch.Tensor) -> torch.Tensor:
        return gaussian_rbf(d_ij, self.offsets, self.widths)


class CosineCutoff(nn.Module):
    def __init__(self, cutoff: float):
        super().__init__()
        self.cutoff = cutoff

    def forward(self, d_ij: torch.Tensor) -> torch.Tensor:
        out = 0.5 * (torch.cos(d_ij * torch.pi / self.cutoff) + 1.0)
        return out * (d_ij < self.cutoff).float()
