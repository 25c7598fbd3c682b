import torch
from torch import nn


class Activation(nn.Module):
    def __init__(self, func: str):
        super().__init__()
        self.func = func
        if func == "relu":
            self.layer = nn.ReLU()
        elif func == "exp":
            self.layer = None
        else:
            raise NotImplementedError(func)

    def forward(self, x):
        return torch.exp(x) if self.layer is None else self.layer(x)


class Norm(nn.Module):
    def __init__(self, func: str, in_dim: int, **kwargs):
        super().__init__()
        if func != "batch":
            raise NotImplementedError(func)
        self.layer = nn.BatchNorm1d(in_dim, **kwargs)

    def forward(self, x):
        return self.layer(x)


class Dropout(nn.Module):
    def __init__(self, p: float = 0.0):
        super().__init__()
        self.layer = nn.Dropout(p) if p > 0 else nn.Identity()

    def forward(self, x):
        return self.layer(x)
