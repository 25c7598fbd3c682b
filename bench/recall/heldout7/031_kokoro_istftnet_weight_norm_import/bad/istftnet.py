import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import weight_norm  # expect: TCK904


def get_padding(kernel_size, dilation=1):
    return int((kernel_size * dilation - dilation) / 2)


class SnakeResBlock(nn.Module):
    def __init__(self, channels, kernel_size=3, dilation=(1, 3, 5)):
        super().__init__()
        self.convs = nn.ModuleList([
            weight_norm(nn.Conv1d(channels, channels, kernel_size, 1, dilation=dilation[0], padding=get_padding(kernel_size, dilation[0]))),  # expect: TCK903
            weight_norm(nn.Conv1d(channels, channels, kernel_size, 1, dilation=dilation[1], padding=get_padding(kernel_size, dilation[1]))),  # expect: TCK903
            weight_norm(nn.Conv1d(channels, channels, kernel_size, 1, dilation=dilation[2], padding=get_padding(kernel_size, dilation[2]))),  # expect: TCK903
        ])
        self.alpha = nn.ParameterList([nn.Parameter(torch.ones(1, channels, 1)) for _ in range(len(self.convs))])

    def forward(self, x):
        for conv, a in zip(self.convs, self.alpha):
            xt = x + (1 / a) * torch.sin(a * x) ** 2
            x = conv(xt) + x
        return x


class Generator(nn.Module):
    def __init__(self, upsample_rates, upsample_kernel_sizes, initial_channel, n_fft):
        super().__init__()
        self.ups = nn.ModuleList()
        self.resblocks = nn.ModuleList()
        for i, (u, k) in enumerate(zip(upsample_rates, upsample_kernel_sizes)):
            self.ups.append(weight_norm(nn.ConvTranspose1d(initial_channel // 2 ** i, initial_channel // 2 ** (i + 1), k, u, padding=(k - u) // 2)))  # expect: TCK903
            self.resblocks.append(SnakeResBlock(initial_channel // 2 ** (i + 1)))
        ch = initial_channel // 2 ** len(upsample_rates)
        self.conv_post = weight_norm(nn.Conv1d(ch, n_fft + 2, 7, 1, padding=3))  # expect: TCK903
        self.n_fft = n_fft

    def forward(self, x):
        for up, block in zip(self.ups, self.resblocks):
            x = block(up(F.leaky_relu(x, 0.1)))
        x = self.conv_post(F.leaky_relu(x))
        spec = torch.exp(x[:, : self.n_fft // 2 + 1])
        phase = torch.sin(x[:, self.n_fft // 2 + 1 :])
        return spec, phase
