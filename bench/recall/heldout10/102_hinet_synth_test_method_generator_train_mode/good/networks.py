import torch
from torch import nn


class FusionGenerator(nn.Module):
    def __init__(self, in_ch=2, out_ch=1, width=32):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(in_ch, width, 3, padding=1),
            nn.BatchNorm2d(width),
            nn.ReLU(inplace=True),
            nn.Dropout2d(0.2),
            nn.Conv2d(width, width, 3, padding=1),
            nn.BatchNorm2d(width),
            nn.ReLU(inplace=True),
            nn.Conv2d(width, out_ch, 1),
        )

    def forward(self, x):
        return torch.tanh(self.body(x))
