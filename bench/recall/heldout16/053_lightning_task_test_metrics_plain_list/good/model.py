from torch import nn


class SegModel(nn.Module):
    def __init__(self, num_classes: int, in_channels: int = 3, width: int = 32):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(in_channels, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(inplace=True),
            nn.Conv2d(width, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(inplace=True),
        )
        self.head = nn.Conv2d(width, num_classes, 1)

    def forward(self, x):
        return self.head(self.encoder(x))
