import torch
from torch import nn


class ExplaiNNConvBlock(nn.Module):
    def __init__(self, in_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv1d(in_channels, 1, kernel_size, padding="same")
        self.pool = nn.AdaptiveMaxPool1d(1)

    def forward(self, x):
        return self.pool(torch.exp(self.conv(x))).flatten(1)


class ExplaiNNTrunk(nn.Module):
    def __init__(self, in_len, channels=300, kernel_size=19):
        super().__init__()
        self.channels = channels
        self.in_len = in_len
        self.blocks = nn.ModuleList([ExplaiNNConvBlock(4, kernel_size) for _ in range(channels)])

    def forward(self, x):
        return torch.cat([block(x) for block in self.blocks], dim=1)
