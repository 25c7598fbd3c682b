import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import remove_weight_norm, weight_norm  # expect: TCK904

LRELU_SLOPE = 0.1


def get_padding(kernel_size, dilation=1):
    return (kernel_size * dilation - dilation) // 2


class ResBlock(nn.Module):
    def __init__(self, channels, kernel_size=3, dilations=(1, 3, 5)):
        super().__init__()
        self.convs = nn.ModuleList(
            [weight_norm(nn.Conv1d(channels, channels, kernel_size, 1, dilation=d, padding=get_padding(kernel_size, d))) for d in dilations]  # expect: TCK903
        )

    def forward(self, x):
        for conv in self.convs:
            x = x + conv(F.leaky_relu(x, LRELU_SLOPE))
        return x

    def remove_weight_norm(self):
        for conv in self.convs:
            remove_weight_norm(conv)


class Generator(nn.Module):
    def __init__(self, n_mels=80, upsample_rates=(8, 8, 2, 2), upsample_kernel_sizes=(16, 16, 4, 4), initial_channels=512):
        super().__init__()
        self.conv_pre = weight_norm(nn.Conv1d(n_mels, initial_channels, 7, 1, padding=3))  # expect: TCK903
        self.ups = nn.ModuleList()
        self.resblocks = nn.ModuleList()
        ch = initial_channels
        for u, k in zip(upsample_rates, upsample_kernel_sizes):
            self.ups.append(weight_norm(nn.ConvTranspose1d(ch, ch // 2, k, u, padding=(k - u) // 2)))  # expect: TCK903
            ch //= 2
            self.resblocks.append(ResBlock(ch))
        self.conv_post = weight_norm(nn.Conv1d(ch, 1, 7, 1, padding=3))  # expect: TCK903

    def forward(self, mel):
        x = self.conv_pre(mel)
        for up, block in zip(self.ups, self.resblocks):
            x = block(up(F.leaky_relu(x, LRELU_SLOPE)))
        return torch.tanh(self.conv_post(F.leaky_relu(x)))

    def remove_weight_norm(self):
        for up in self.ups:
            remove_weight_norm(up)
        for block in self.resblocks:
            block.remove_weight_norm()
        remove_weight_norm(self.conv_pre)
        remove_weight_norm(self.conv_post)
