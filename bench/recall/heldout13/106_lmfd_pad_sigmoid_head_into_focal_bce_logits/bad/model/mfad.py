import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvBlock(nn.Module):
    def __init__(self, cin, cout, stride=2):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(cout)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


class FAD_HAM_Net(nn.Module):
    """Face presentation-attack detector: a bona fide / attack score and a pixel-wise map."""

    def __init__(self, width=32):
        super().__init__()
        self.rgb_stem = nn.Sequential(ConvBlock(3, width), ConvBlock(width, width * 2))
        self.freq_stem = nn.Sequential(ConvBlock(3, width), ConvBlock(width, width * 2))
        self.fuse = ConvBlock(width * 4, width * 4, stride=2)
        self.map_head = nn.Sequential(nn.Conv2d(width * 4, 1, 1), nn.Sigmoid())
        self.cls_head = nn.Sequential(
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
            nn.Dropout(0.3),
            nn.Linear(width * 4, 1),
            nn.Sigmoid(),
        )

    def forward(self, x):
        freq = torch.fft.fft2(x, norm="ortho").abs().log1p()
        h = torch.cat([self.rgb_stem(x), self.freq_stem(freq)], dim=1)
        h = self.fuse(h)
        return self.cls_head(h), self.map_head(h)
