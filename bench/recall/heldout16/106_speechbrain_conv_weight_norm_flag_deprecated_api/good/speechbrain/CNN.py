import torch.nn.functional as F
from torch import nn
from torch.nn.utils import parametrize
from torch.nn.utils.parametrizations import weight_norm as apply_weight_norm


class Conv1d(nn.Module):
    """1D convolution over (batch, time, channel) inputs with optional weight normalisation."""

    def __init__(self, out_channels, kernel_size, in_channels, stride=1, dilation=1, padding="same", bias=True, weight_norm=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, stride=stride, dilation=dilation, bias=bias)
        if weight_norm:
            self.conv = apply_weight_norm(self.conv)

    def forward(self, x):
        x = x.transpose(1, -1)
        if self.padding == "same":
            pad = self.dilation * (self.kernel_size - 1) // 2
            x = F.pad(x, (pad, pad), mode="reflect")
        return self.conv(x).transpose(1, -1)

    def remove_weight_norm(self):
        parametrize.remove_parametrizations(self.conv, "weight")


class ConvTranspose1d(nn.Module):
    def __init__(self, out_channels, kernel_size, in_channels, stride=1, padding=0, weight_norm=False):
        super().__init__()
        self.conv = nn.ConvTranspose1d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)
        if weight_norm:
            self.conv = apply_weight_norm(self.conv)

    def forward(self, x):
        return self.conv(x.transpose(1, -1)).transpose(1, -1)

    def remove_weight_norm(self):
        parametrize.remove_parametrizations(self.conv, "weight")
