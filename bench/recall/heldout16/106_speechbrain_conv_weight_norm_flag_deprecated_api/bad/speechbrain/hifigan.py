import torch
import torch.nn.functional as F
from torch import nn

from speechbrain.CNN import Conv1d, ConvTranspose1d


class ResBlock(nn.Module):
    def __init__(self, channels, kernel_size=3, dilations=(1, 3, 5)):
        super().__init__()
        self.convs = nn.ModuleList(
            Conv1d(channels, kernel_size, channels, dilation=d, weight_norm=True) for d in dilations
        )

    def forward(self, x):
        for conv in self.convs:
            x = x + conv(F.leaky_relu(x, 0.1))
        return x

    def remove_weight_norm(self):
        for conv in self.convs:
            conv.remove_weight_norm()


class HifiganGenerator(nn.Module):
    def __init__(self, in_channels=80, channels=512, upsample_factors=(8, 8, 2, 2)):
        super().__init__()
        self.conv_pre = Conv1d(channels, 7, in_channels, weight_norm=True)
        self.ups = nn.ModuleList()
        self.blocks = nn.ModuleList()
        ch = channels
        for factor in upsample_factors:
            self.ups.append(ConvTranspose1d(ch // 2, factor * 2, ch, stride=factor, padding=factor // 2, weight_norm=True))
            ch //= 2
            self.blocks.append(ResBlock(ch))
        self.conv_post = Conv1d(1, 7, ch, weight_norm=True)

    def forward(self, mel):
        x = self.conv_pre(mel)
        for up, block in zip(self.ups, self.blocks):
            x = block(up(F.leaky_relu(x, 0.1)))
        return torch.tanh(self.conv_post(F.leaky_relu(x)))

    def remove_weight_norm(self):
        self.conv_pre.remove_weight_norm()
        for up, block in zip(self.ups, self.blocks):
            up.remove_weight_norm()
            block.remove_weight_norm()
        self.conv_post.remove_weight_norm()
