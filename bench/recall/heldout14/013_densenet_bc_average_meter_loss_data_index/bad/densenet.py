import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Bottleneck(nn.Module):
    def __init__(self, in_planes, growth_rate, drop_rate=0.0):
        super().__init__()
        inter = 4 * growth_rate
        self.bn1, self.conv1 = nn.BatchNorm2d(in_planes), nn.Conv2d(in_planes, inter, 1, bias=False)
        self.bn2, self.conv2 = nn.BatchNorm2d(inter), nn.Conv2d(inter, growth_rate, 3, padding=1, bias=False)
        self.drop_rate = drop_rate

    def forward(self, x):
        out = self.conv1(F.relu(self.bn1(x)))
        out = self.conv2(F.relu(self.bn2(out)))
        if self.drop_rate > 0:
            out = F.dropout(out, p=self.drop_rate, training=self.training)
        return torch.cat([x, out], 1)


class Transition(nn.Module):
    def __init__(self, in_planes, out_planes):
        super().__init__()
        self.bn, self.conv = nn.BatchNorm2d(in_planes), nn.Conv2d(in_planes, out_planes, 1, bias=False)

    def forward(self, x):
        return F.avg_pool2d(self.conv(F.relu(self.bn(x))), 2)


class DenseNet3(nn.Module):
    """DenseNet-BC for CIFAR (three dense blocks)."""

    def __init__(self, depth=100, num_classes=10, growth_rate=12, reduction=0.5, drop_rate=0.0):
        super().__init__()
        n = (depth - 4) // 6
        planes = 2 * growth_rate
        self.conv1 = nn.Conv2d(3, planes, 3, padding=1, bias=False)
        blocks = []
        for b in range(3):
            layers = []
            for _ in range(n):
                layers.append(Bottleneck(planes, growth_rate, drop_rate))
                planes += growth_rate
            blocks.append(nn.Sequential(*layers))
            if b < 2:
                out_planes = int(math.floor(planes * reduction))
                blocks.append(Transition(planes, out_planes))
                planes = out_planes
        self.blocks = nn.Sequential(*blocks)
        self.bn = nn.BatchNorm2d(planes)
        self.fc = nn.Linear(planes, num_classes)

    def forward(self, x):
        out = F.relu(self.bn(self.blocks(self.conv1(x))))
        return self.fc(F.adaptive_avg_pool2d(out, 1).flatten(1))
