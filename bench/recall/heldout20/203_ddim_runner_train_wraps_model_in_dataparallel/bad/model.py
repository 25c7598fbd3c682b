import math

import torch
import torch.nn as nn


def timestep_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000) * torch.arange(half, device=t.device) / half)
    args = t.float()[:, None] * freqs[None]
    return torch.cat([args.sin(), args.cos()], dim=1)


class Model(nn.Module):
    """Small stand-in for the DDPM UNet: conv stack conditioned on the timestep."""

    def __init__(self, config):
        super().__init__()
        self.config = config
        ch = config.model.ch
        self.temb = nn.Sequential(nn.Linear(ch, ch * 4), nn.SiLU(), nn.Linear(ch * 4, ch))
        self.conv_in = nn.Conv2d(config.data.channels, ch, 3, padding=1)
        self.mid = nn.Sequential(nn.GroupNorm(8, ch), nn.SiLU(), nn.Conv2d(ch, ch, 3, padding=1))
        self.conv_out = nn.Conv2d(ch, config.data.channels, 3, padding=1)

    def forward(self, x, t):
        h = self.conv_in(x)
        h = h + self.temb(timestep_embedding(t, h.shape[1]))[:, :, None, None]
        return self.conv_out(self.mid(h))


def noise_estimation_loss(model, x0, t, e, b, keepdim=False):
    a = (1 - b).cumprod(dim=0).index_select(0, t).view(-1, 1, 1, 1)
    x = x0 * a.sqrt() + e * (1.0 - a).sqrt()
    output = model(x, t.float())
    if keepdim:
        return (e - output).square().sum(dim=(1, 2, 3))
    return (e - output).square().sum(dim=(1, 2, 3)).mean(dim=0)
