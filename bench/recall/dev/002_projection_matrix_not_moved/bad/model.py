import torch
from torch import nn


class Projector(nn.Module):
    def __init__(self, d_in: int, d_out: int) -> None:
        super().__init__()
        self.matrix = torch.randn(d_in, d_out)  # expect: TCK606

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.matmul(x, self.matrix)
