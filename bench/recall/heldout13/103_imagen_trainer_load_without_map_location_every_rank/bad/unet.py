import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class TimeEmbedding(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self.proj = nn.Sequential(nn.Linear(dim, dim * 4), nn.SiLU(), nn.Linear(dim * 4, dim))

    def forward(self, t):
        half = self.dim // 2
        freqs = torch.exp(-math.log(10000) * torch.arange(half, device=t.device) / half)
        args = t.float()[:, None] * freqs[None]
        return self.proj(torch.cat([args.sin(), args.cos()], dim=-1))


class Unet(nn.Module):
    def __init__(self, dim=64, channels=3):
        super().__init__()
        self.time = TimeEmbedding(dim)
        self.inp = nn.Conv2d(channels, dim, 3, padding=1)
        self.down = nn.Conv2d(dim, dim * 2, 4, stride=2, padding=1)
        self.mid = nn.Conv2d(dim * 2, dim * 2, 3, padding=1)
        self.up = nn.ConvTranspose2d(dim * 2, dim, 4, stride=2, padding=1)
        self.out = nn.Conv2d(dim, channels, 3, padding=1)
        self.time_to_mid = nn.Linear(dim, dim * 2)

    def forward(self, x, t):
        h = F.silu(self.inp(x))
        h = F.silu(self.down(h))
        h = h + self.time_to_mid(self.time(t))[:, :, None, None]
        h = F.silu(self.mid(h))
        h = F.silu(self.up(h))
        return self.out(h)


class Imagen(nn.Module):
    def __init__(self, unet, timesteps=1000):
        super().__init__()
        self.unet = unet
        self.timesteps = timesteps
        betas = torch.linspace(1e-4, 0.02, timesteps)
        self.register_buffer("alphas_cumprod", torch.cumprod(1.0 - betas, dim=0))

    def forward(self, images):
        b = images.size(0)
        t = torch.randint(0, self.timesteps, (b,), device=images.device)
        noise = torch.randn_like(images)
        a = self.alphas_cumprod[t].view(b, 1, 1, 1)
        noisy = a.sqrt() * images + (1 - a).sqrt() * noise
        return F.mse_loss(self.unet(noisy, t), noise)
