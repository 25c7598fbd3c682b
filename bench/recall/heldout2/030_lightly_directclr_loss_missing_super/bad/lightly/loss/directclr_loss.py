import torch
import torch.nn.functional as F
from torch import nn


class InfoNCELoss(nn.Module):
    def __init__(self, dim: int = 360, temperature: float = 0.1):  # expect: TCK603
        self.dim = dim
        self.temperature = temperature

    def forward(self, z1: torch.Tensor, z2: torch.Tensor) -> torch.Tensor:
        z1 = F.normalize(z1[:, : self.dim], dim=1)
        z2 = F.normalize(z2[:, : self.dim], dim=1)
        logits = z1 @ z2.T / self.temperature
        labels = torch.arange(z1.shape[0], device=z1.device)
        return F.cross_entropy(logits, labels)


class DirectCLRLoss(nn.Module):
    def __init__(self, dim: int = 360, temperature: float = 0.1):
        super().__init__()
        self.info_nce = InfoNCELoss(dim, temperature)

    def forward(self, z1, z2):
        return self.info_nce(z1, z2)
