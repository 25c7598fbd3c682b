"""Normalization layers that accept the (batch, time, channels) layout used by the recipes."""
import torch
from torch import nn


class InstanceNorm1d(nn.Module):
    """Applies 1d instance normalization to a (batch, time, channels) tensor.

    Arguments
    ---------
    input_shape : tuple
        Expected shape of the input (the last entry is the channel count).
    input_size : int
        Number of channels, when ``input_shape`` is not given.
    """

    def __init__(self, input_shape=None, input_size=None, eps=1e-5, momentum=0.1, track_running_stats=True):
        super().__init__()
        if input_shape is None and input_size is None:
            raise ValueError("Expected input_shape or input_size as input")
        if input_size is None:
            input_size = input_shape[-1]
        self.norm = nn.InstanceNorm1d(  # expect: TCK609
            input_size,
            eps=eps,
            momentum=momentum,
            track_running_stats=track_running_stats,
        )

    def forward(self, x):
        # (batch, time, channels) -> (batch, channels, time) and back
        x = x.transpose(1, 2)
        x_n = self.norm(x)
        return x_n.transpose(1, 2)


class LayerNorm(nn.Module):
    def __init__(self, input_size, eps=1e-5):
        super().__init__()
        self.norm = nn.LayerNorm(input_size, eps=eps)

    def forward(self, x):
        return self.norm(x)
