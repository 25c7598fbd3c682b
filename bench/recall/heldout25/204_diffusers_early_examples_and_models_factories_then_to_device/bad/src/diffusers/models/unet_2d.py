import math

import torch
from torch import nn


class UNet2DModel(nn.Module):
    """Small stand-in for the denoising UNet: predicts the noise from a noisy image and a timestep."""

    def __init__(self, sample_size=64, in_channels=3, out_channels=3, hidden=64):
        super().__init__()
        self.sample_size = sample_size
        self.time_proj = nn.Linear(1, hidden)
        self.conv_in = nn.Conv2d(in_channels, hidden, 3, padding=1)
        self.mid = nn.Sequential(nn.SiLU(), nn.Conv2d(hidden, hidden, 3, padding=1), nn.SiLU())
        self.conv_out = nn.Conv2d(hidden, out_channels, 3, padding=1)

    def forward(self, sample, timestep):
        t = timestep.float().view(-1, 1) / 1000.0
        emb = self.time_proj(torch.sin(t * math.pi))[:, :, None, None]
        h = self.conv_in(sample) + emb
        return {"sample": self.conv_out(self.mid(h))}
