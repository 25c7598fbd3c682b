import torch
import torch.nn as nn


class Matmul(nn.Module):
    """A matrix multiplication as a module, so that quantizers and hooks can see it."""

    def forward(self, a: torch.Tensor, b: torch.Tensor):
        return a.matmul(b)


class BatchMatmul(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor):
        return torch.bmm(a, b)
