import math

import torch
import torch.nn.functional as F
from torch import nn


class TinyUnet(nn.Module):
    def __init__(self, channels=3, dim=64):
        super().__init__()
        self.time_mlp = nn.Sequential(nn.Linear(1, dim), nn.SiLU(), nn.Linear(dim, dim))
        self.inp = nn.Conv2d(channels, dim, 3, padding=1)
        self.mid = nn.Conv2d(dim, dim, 3, padding=1)
        self.out = nn.Conv2d(dim, channels, 3, padding=1)

    def forward(self, x, t):
        h = self.inp(x) + self.time_mlp(t.float().unsqueeze(-1))[:, :, None, None]
        return self.out(F.silu(self.mid(F.silu(h))))


class GaussianDiffusion(nn.Module):
    def __init__(self, model, timesteps=1000):
        super().__init__()
        self.model = model
        self.num_timesteps = timesteps
        betas = torch.linspace(1e-4, 0.02, timesteps)
        alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)
        self.register_buffer("sqrt_alphas_cumprod", alphas_cumprod.sqrt())
        self.register_buffer("sqrt_one_minus_alphas_cumprod", (1.0 - alphas_cumprod).sqrt())

    def forward(self, img):
        b = img.shape[0]
        t = torch.randint(0, self.num_timesteps, (b,), device=img.device)
        noise = torch.randn_like(img)
        x = self.sqrt_alphas_cumprod[t][:, None, None, None] * img
        x = x + self.sqrt_one_minus_alphas_cumprod[t][:, None, None, None] * noise
        return F.mse_loss(self.model(x * 2 - 1, t), noise)
