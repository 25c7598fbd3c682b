import torch
import torch.nn.functional as F
from torch import nn

from misc import initialize_weights


class _EncoderBlock(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.encode = nn.Sequential(
            nn.Conv2d(in_channels, out_channels, kernel_size=3),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=2, stride=2),
        )

    def forward(self, x):
        return self.encode(x)


class UNet(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.enc1 = _EncoderBlock(3, 64)
        self.enc2 = _EncoderBlock(64, 128)
        self.final = nn.Conv2d(128, num_classes, kernel_size=1)
        initialize_weights(self)

    def forward(self, x):
        enc2 = self.enc2(self.enc1(x))
        return F.interpolate(self.final(enc2), x.size()[2:], mode="bilinear")


net = UNet(num_classes=21)
print(net(torch.randn(1, 3, 64, 64)).shape)
