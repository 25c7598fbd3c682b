import torch
from torch import nn


class DishTS(nn.Module):
    def __init__(self, input_size: int, lookback: int) -> None:
        super().__init__()
        self._reduce_layer = nn.Parameter(torch.randn(input_size, lookback, 2) / lookback)
        self._level: torch.Tensor

    def forward(self, x: torch.Tensor, inverse: bool = False) -> torch.Tensor:
        if inverse:
            return x + self._level
        theta = x.permute(2, 0, 1).bmm(self._reduce_layer).permute(1, 2, 0)
        self._level = theta[:, :1]
        return x - self._level
