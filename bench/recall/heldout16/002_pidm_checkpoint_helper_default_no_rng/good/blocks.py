import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.checkpoint


def torch_checkpoint(func, args, flag, preserve_rng_state=True):
    # recompute `func` in backward instead of storing its activations
    if flag:
        return torch.utils.checkpoint.checkpoint(
            func, *args, use_reentrant=True, preserve_rng_state=preserve_rng_state
        )
    return func(*args)


def timestep_embedding(t, dim, max_period=10000):
    half = dim // 2
    freqs = torch.exp(-math.log(max_period) * torch.arange(half, dtype=torch.float32) / half).to(t.device)
    args = t[:, None].float() * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


class ResBlock(nn.Module):
    def __init__(self, channels, emb_channels, dropout, use_checkpoint=False):
        super().__init__()
        self.use_checkpoint = use_checkpoint
        self.in_layers = nn.Sequential(
            nn.GroupNorm(32, channels),
            nn.SiLU(),
            nn.Conv2d(channels, channels, 3, padding=1),
        )
        self.emb_layers = nn.Sequential(nn.SiLU(), nn.Linear(emb_channels, channels))
        self.out_layers = nn.Sequential(
            nn.GroupNorm(32, channels),
            nn.SiLU(),
            nn.Dropout(p=dropout),
            nn.Conv2d(channels, channels, 3, padding=1),
        )

    def forward(self, x, emb):
        return torch_checkpoint(self._forward, (x, emb), self.use_checkpoint)

    def _forward(self, x, emb):
        h = self.in_layers(x)
        h = h + self.emb_layers(emb)[..., None, None]
        return x + self.out_layers(h)


class TinyUNet(nn.Module):
    def __init__(self, channels=64, depth=4, dropout=0.1, use_checkpoint=True):
        super().__init__()
        self.channels = channels
        self.inp = nn.Conv2d(3, channels, 3, padding=1)
        self.time_embed = nn.Sequential(
            nn.Linear(channels, channels * 4), nn.SiLU(), nn.Linear(channels * 4, channels * 4)
        )
        self.blocks = nn.ModuleList(
            ResBlock(channels, channels * 4, dropout, use_checkpoint) for _ in range(depth)
        )
        self.out = nn.Conv2d(channels, 3, 3, padding=1)

    def forward(self, x, t):
        emb = self.time_embed(timestep_embedding(t, self.channels))
        h = self.inp(x)
        for block in self.blocks:
            h = block(h, emb)
        return self.out(F.silu(h))
