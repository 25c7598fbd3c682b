import torch
from torch import nn


class Activation(nn.Module):
    """Output activation selected by name from the model configuration."""

    def __init__(self, name):
        super().__init__()
        if name is None or name == "identity":
            self.activation = nn.Identity()
        elif name == "sigmoid":
            self.activation = nn.Sigmoid()
        elif name == "softmax":
            self.activation = nn.Softmax(dim=1)
        elif name == "tanh":
            self.activation = nn.Tanh()
        else:
            raise ValueError(f"unknown activation {name!r}")

    def forward(self, x):
        return self.activation(x)


class SegmentationHead(nn.Sequential):
    def __init__(self, in_channels, out_channels, kernel_size=3, upsampling=1, activation=None):
        conv2d = nn.Conv2d(in_channels, out_channels, kernel_size=kernel_size, padding=kernel_size // 2)
        upsample = nn.UpsamplingBilinear2d(scale_factor=upsampling) if upsampling > 1 else nn.Identity()
        super().__init__(conv2d, upsample, Activation(activation))
