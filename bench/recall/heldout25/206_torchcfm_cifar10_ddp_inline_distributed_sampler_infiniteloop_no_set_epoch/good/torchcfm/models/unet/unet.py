import torch
from torch import nn


class UNetModelWrapper(nn.Module):
    """Small stand-in for the UNet velocity field v(t, x)."""

    def __init__(self, dim=(3, 32, 32), num_channels=128, dropout=0.1, **kwargs):
        super().__init__()
        c = dim[0]
        self.time_embed = nn.Sequential(nn.Linear(1, num_channels), nn.SiLU(), nn.Linear(num_channels, num_channels))
        self.inp = nn.Conv2d(c, num_channels, 3, padding=1)
        self.mid = nn.Sequential(nn.GroupNorm(8, num_channels), nn.SiLU(), nn.Dropout(dropout), nn.Conv2d(num_channels, num_channels, 3, padding=1))
        self.out = nn.Conv2d(num_channels, c, 3, padding=1)

    def forward(self, t, x):
        if t.dim() == 0:
            t = t.expand(x.shape[0])
        h = self.inp(x) + self.time_embed(t.view(-1, 1).to(x.dtype))[:, :, None, None]
        return self.out(self.mid(h))
