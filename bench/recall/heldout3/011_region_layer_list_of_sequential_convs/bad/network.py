import torch.nn as nn


class RegionLayer(nn.Module):
    def __init__(self, in_channels):
        super(RegionLayer, self).__init__()
        self.in_channels = in_channels
        self.convs = [  # expect: TCK601
            nn.Sequential(
                nn.Conv2d(in_channels, in_channels, kernel_size=3, stride=1, padding=1),
                nn.Conv2d(in_channels, in_channels, kernel_size=3, stride=1, padding=1),
            ),
            nn.Sequential(
                nn.Conv2d(in_channels, in_channels, kernel_size=3, stride=1, padding=1),
                nn.Conv2d(in_channels, in_channels, kernel_size=3, stride=1, padding=1),
            ),
        ]

    def forward(self, x):
        out = self.convs[0](x)
        return self.convs[1](out)


net = RegionLayer(32)
net.cuda()
