import torch
import torch.nn as nn


def conv_block(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
    )


class FBPConvNet(nn.Module):
    """Post-processing U-Net applied to a filtered back-projection (residual learning)."""

    def __init__(self, fbp_operator, base=64):
        super().__init__()
        self.fbp = fbp_operator
        self.down1, self.down2, self.down3 = conv_block(1, base), conv_block(base, 2 * base), conv_block(2 * base, 4 * base)
        self.pool = nn.MaxPool2d(2)
        self.up2 = nn.ConvTranspose2d(4 * base, 2 * base, 2, stride=2)
        self.dec2 = conv_block(4 * base, 2 * base)
        self.up1 = nn.ConvTranspose2d(2 * base, base, 2, stride=2)
        self.dec1 = conv_block(2 * base, base)
        self.out = nn.Conv2d(base, 1, 1)

    def forward(self, sinogram):
        x = self.fbp(sinogram)
        d1 = self.down1(x)
        d2 = self.down2(self.pool(d1))
        d3 = self.down3(self.pool(d2))
        u2 = self.dec2(torch.cat([self.up2(d3), d2], dim=1))
        u1 = self.dec1(torch.cat([self.up1(u2), d1], dim=1))
        return x + self.out(u1)
