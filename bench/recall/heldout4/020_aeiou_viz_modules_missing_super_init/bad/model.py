from torch import nn

from blocks import ResConvBlock, SelfAttention1d


class AudioEncoder(nn.Module):
    def __init__(self, channels=64):
        super().__init__()
        self.net = nn.Sequential(ResConvBlock(2, channels, channels), SelfAttention1d(channels), ResConvBlock(channels, channels, 32))

    def forward(self, x):
        return self.net(x)
