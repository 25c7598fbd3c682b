import torch
from torch import nn


def conv_block(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
    )


class UNet3Plus(nn.Module):
    def __init__(self, n_channels=3, n_classes=1, width=16):
        super().__init__()
        self.n_channels = n_channels
        self.n_classes = n_classes
        self.enc1 = conv_block(n_channels, width)
        self.enc2 = conv_block(width, width * 2)
        self.enc3 = conv_block(width * 2, width * 4)
        self.pool = nn.MaxPool2d(2)
        self.fuse = conv_block(width + width * 2 + width * 4, width * 2)
        self.outconv = nn.Conv2d(width * 2, n_classes, 3, padding=1)

    def forward(self, inputs):
        h1 = self.enc1(inputs)
        h2 = self.enc2(self.pool(h1))
        h3 = self.enc3(self.pool(h2))
        up2 = nn.functional.interpolate(h2, size=h1.shape[-2:], mode="bilinear", align_corners=False)
        up3 = nn.functional.interpolate(h3, size=h1.shape[-2:], mode="bilinear", align_corners=False)
        d1 = self.outconv(self.fuse(torch.cat([h1, up2, up3], dim=1)))
        return d1
