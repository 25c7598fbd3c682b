import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from base import Module


class TimeEmbedding(Module):
    def __init__(self, n_channels):
        super().__init__()
        self.n_channels = n_channels
        self.lin1 = nn.Linear(n_channels // 4, n_channels)
        self.lin2 = nn.Linear(n_channels, n_channels)

    def forward(self, t):
        half_dim = self.n_channels // 8
        emb = math.log(10_000) / (half_dim - 1)
        emb = torch.exp(torch.arange(half_dim, device=t.device) * -emb)
        emb = t[:, None] * emb[None, :]
        emb = torch.cat((emb.sin(), emb.cos()), dim=1)
        return self.lin2(F.silu(self.lin1(emb)))


class ResidualBlock(Module):
    def __init__(self, in_channels, out_channels, time_channels, n_groups=8, dropout_rate=0.1):
        super().__init__()
        self.norm1 = nn.GroupNorm(n_groups, in_channels)
        self.act1 = nn.SiLU()
        self.conv1 = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1)
        self.norm2 = nn.GroupNorm(n_groups, out_channels)
        self.act2 = nn.SiLU()
        self.conv2 = nn.Conv2d(out_channels, out_channels, kernel_size=3, padding=1)
        if in_channels != out_channels:
            self.shortcut = nn.Conv2d(in_channels, out_channels, kernel_size=1)
        else:
            self.shortcut = nn.Identity()
        self.time_emb = nn.Linear(time_channels, out_channels)
        self.dropout = nn.Dropout(dropout_rate)

    def forward(self, x, t):
        h = self.conv1(self.act1(self.norm1(x)))
        h = h + self.time_emb(F.silu(t))[:, :, None, None]
        h = self.conv2(self.dropout(self.act2(self.norm2(h))))
        return h + self.shortcut(x)


class UNet(Module):
    def __init__(self, image_channels=3, n_channels=32, ch_mults=(1, 2, 2)):
        super().__init__()
        self.image_proj = nn.Conv2d(image_channels, n_channels, kernel_size=3, padding=1)
        self.time_emb = TimeEmbedding(n_channels * 4)
        chans = [n_channels * m for m in ch_mults]
        self.down = nn.ModuleList()
        self.downsample = nn.ModuleList()
        in_ch = n_channels
        for ch in chans:
            self.down.append(ResidualBlock(in_ch, ch, n_channels * 4))
            self.downsample.append(nn.Conv2d(ch, ch, 3, stride=2, padding=1))
            in_ch = ch
        self.middle = ResidualBlock(in_ch, in_ch, n_channels * 4)
        self.up = nn.ModuleList()
        self.upsample = nn.ModuleList()
        for ch in reversed(chans):
            self.upsample.append(nn.ConvTranspose2d(in_ch, in_ch, 4, stride=2, padding=1))
            self.up.append(ResidualBlock(in_ch + ch, ch, n_channels * 4))
            in_ch = ch
        self.norm = nn.GroupNorm(8, in_ch)
        self.final = nn.Conv2d(in_ch, image_channels, kernel_size=3, padding=1)

    def forward(self, x, t):
        t = self.time_emb(t)
        x = self.image_proj(x)
        skips = []
        for block, down in zip(self.down, self.downsample):
            x = block(x, t)
            skips.append(x)
            x = down(x)
        x = self.middle(x, t)
        for up, block in zip(self.upsample, self.up):
            x = up(x)
            x = block(torch.cat([x, skips.pop()], dim=1), t)
        return self.final(F.silu(self.norm(x)))
