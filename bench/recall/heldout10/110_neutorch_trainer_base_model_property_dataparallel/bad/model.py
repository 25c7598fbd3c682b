import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, in_channels=1, out_channels=3, width=16):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv3d(in_channels, width, 3, padding=1), nn.ReLU(inplace=True),
            nn.Conv3d(width, width, 3, padding=1), nn.ReLU(inplace=True),
            nn.Conv3d(width, out_channels, 1),
        )

    def forward(self, x):
        return self.net(x)
