import torch.nn as nn


class ResnetInit(nn.Module):
    def __init__(self, in_channels, out_channels, stride):
        super().__init__()
        self.residual = nn.Sequential(nn.Conv2d(in_channels, out_channels, 3, stride, 1), nn.BatchNorm2d(out_channels),
                                      nn.ReLU(inplace=True), nn.Conv2d(out_channels, out_channels, 3, 1, 1))
        self.shortcut = nn.Conv2d(in_channels, out_channels, 1, stride) if stride != 1 or in_channels != out_channels \
            else nn.Identity()
        self.bn = nn.BatchNorm2d(out_channels)

    def forward(self, x):
        return nn.functional.relu(self.bn(self.residual(x) + self.shortcut(x)))


class ResnetInResnet(nn.Module):
    def __init__(self, num_classes=100):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 96, 3, padding=1), nn.BatchNorm2d(96), nn.ReLU(inplace=True))
        self.stage1 = nn.Sequential(ResnetInit(96, 96, 1), ResnetInit(96, 192, 2))
        self.stage2 = nn.Sequential(ResnetInit(192, 192, 1), ResnetInit(192, 384, 2))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(384, num_classes)

    def forward(self, x):
        x = self.stage2(self.stage1(self.stem(x)))
        return self.fc(self.pool(x).flatten(1))


def resnet_in_resnet():
    return ResnetInResnet()
