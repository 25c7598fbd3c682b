import torch.nn as nn
import torch.nn.functional as F


class PreActBlock(nn.Module):
    def __init__(self, in_planes, planes, stride=1):
        super().__init__()
        self.bn1 = nn.BatchNorm2d(in_planes)
        self.conv1 = nn.Conv2d(in_planes, planes, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.shortcut = None
        if stride != 1 or in_planes != planes:
            self.shortcut = nn.Conv2d(in_planes, planes, 1, stride, bias=False)

    def forward(self, x):
        out = F.relu(self.bn1(x))
        shortcut = self.shortcut(out) if self.shortcut is not None else x
        out = self.conv1(out)
        out = self.conv2(F.relu(self.bn2(out)))
        return out + shortcut


class PreActResNet18(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
        self.layers = nn.Sequential(
            PreActBlock(64, 64), PreActBlock(64, 64),
            PreActBlock(64, 128, 2), PreActBlock(128, 128),
            PreActBlock(128, 256, 2), PreActBlock(256, 256),
            PreActBlock(256, 512, 2), PreActBlock(512, 512),
        )
        self.linear = nn.Linear(512, num_classes)

    def forward(self, x):
        out = self.layers(self.conv1(x))
        out = F.adaptive_avg_pool2d(out, 1).flatten(1)
        return self.linear(out)
