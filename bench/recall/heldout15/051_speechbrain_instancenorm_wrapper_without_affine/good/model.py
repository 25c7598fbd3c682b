import torch
from torch import nn

from normalization import InstanceNorm1d, LayerNorm


class ConvBlock(nn.Module):
    def __init__(self, channels, kernel_size=5):
        super().__init__()
        self.conv = nn.Conv1d(channels, channels, kernel_size, padding=kernel_size // 2)
        self.norm = InstanceNorm1d(input_size=channels)
        self.act = nn.PReLU()

    def forward(self, x):
        # x: (batch, time, channels)
        y = self.conv(x.transpose(1, 2)).transpose(1, 2)
        return x + self.act(self.norm(y))


class MaskEstimator(nn.Module):
    """Predicts a spectral mask for speech enhancement."""

    def __init__(self, n_freq=257, channels=256, n_blocks=4):
        super().__init__()
        self.inp = nn.Linear(n_freq, channels)
        self.blocks = nn.Sequential(*[ConvBlock(channels) for _ in range(n_blocks)])
        self.out_norm = LayerNorm(channels)
        self.out = nn.Linear(channels, n_freq)

    def forward(self, spec):
        h = self.blocks(self.inp(spec))
        return torch.sigmoid(self.out(self.out_norm(h)))
