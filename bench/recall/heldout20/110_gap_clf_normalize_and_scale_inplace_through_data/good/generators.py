import torch
import torch.nn as nn


class ResnetGenerator(nn.Module):
    """Small image-to-perturbation generator; the output is in [-1, 1]."""

    def __init__(self, in_ch=3, out_ch=3, width=32, n_blocks=2):
        super().__init__()
        layers = [nn.Conv2d(in_ch, width, 7, padding=3), nn.BatchNorm2d(width), nn.ReLU(True)]
        for _ in range(n_blocks):
            layers += [nn.Conv2d(width, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(True)]
        layers += [nn.Conv2d(width, out_ch, 7, padding=3), nn.Tanh()]
        self.model = nn.Sequential(*layers)

    def forward(self, x):
        return self.model(x)
