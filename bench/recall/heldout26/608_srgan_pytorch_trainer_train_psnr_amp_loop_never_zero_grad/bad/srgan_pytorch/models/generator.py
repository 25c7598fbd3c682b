import torch.nn as nn


class ResidualBlock(nn.Module):
    def __init__(self, channels):
        super(ResidualBlock, self).__init__()
        self.body = nn.Sequential(
            nn.Conv2d(channels, channels, 3, 1, 1, bias=False), nn.BatchNorm2d(channels), nn.PReLU(),
            nn.Conv2d(channels, channels, 3, 1, 1, bias=False), nn.BatchNorm2d(channels))

    def forward(self, x):
        return x + self.body(x)


class Generator(nn.Module):
    """SRResNet generator: 16 residual blocks and two x2 pixel-shuffle upsamplers."""

    def __init__(self, num_blocks=16):
        super(Generator, self).__init__()
        self.head = nn.Sequential(nn.Conv2d(3, 64, 9, 1, 4), nn.PReLU())
        self.trunk = nn.Sequential(*[ResidualBlock(64) for _ in range(num_blocks)])
        self.neck = nn.Sequential(nn.Conv2d(64, 64, 3, 1, 1, bias=False), nn.BatchNorm2d(64))
        self.upsampling = nn.Sequential(
            nn.Conv2d(64, 256, 3, 1, 1), nn.PixelShuffle(2), nn.PReLU(),
            nn.Conv2d(64, 256, 3, 1, 1), nn.PixelShuffle(2), nn.PReLU())
        self.tail = nn.Conv2d(64, 3, 9, 1, 4)

    def forward(self, x):
        head = self.head(x)
        out = head + self.neck(self.trunk(head))
        return self.tail(self.upsampling(out))
