import torch
import torch.nn as nn

from .attention import AttentionS2


class SphericalTransformerBlock(nn.Module):
    def __init__(self, channels, heads, shape, drop_rate):
        super().__init__()
        self.norm1 = nn.GroupNorm(1, channels)
        self.attn = AttentionS2(channels, heads, shape, drop_rate=drop_rate, scale=torch.tensor(0.5))
        self.norm2 = nn.GroupNorm(1, channels)
        self.mlp = nn.Sequential(nn.Conv2d(channels, 2 * channels, 1), nn.GELU(), nn.Conv2d(2 * channels, channels, 1))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class SphericalForecaster(nn.Module):
    def __init__(self, in_vars=4, channels=32, heads=4, shape=(16, 32), depth=2, drop_rate=0.1):
        super().__init__()
        self.encoder = nn.Conv2d(in_vars, channels, 1)
        self.blocks = nn.Sequential(*[SphericalTransformerBlock(channels, heads, shape, drop_rate) for _ in range(depth)])
        self.decoder = nn.Conv2d(channels, in_vars, 1)

    def forward(self, x):
        return x + self.decoder(self.blocks(self.encoder(x)))
