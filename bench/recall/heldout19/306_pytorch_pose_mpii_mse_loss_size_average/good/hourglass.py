import torch.nn as nn
import torch.nn.functional as F


class Bottleneck(nn.Module):
    expansion = 2

    def __init__(self, inplanes, planes):
        super().__init__()
        self.bn1 = nn.BatchNorm2d(inplanes)
        self.conv1 = nn.Conv2d(inplanes, planes, kernel_size=1)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, padding=1)
        self.bn3 = nn.BatchNorm2d(planes)
        self.conv3 = nn.Conv2d(planes, planes * 2, kernel_size=1)
        self.skip = nn.Conv2d(inplanes, planes * 2, kernel_size=1) if inplanes != planes * 2 else nn.Identity()

    def forward(self, x):
        out = self.conv1(F.relu(self.bn1(x)))
        out = self.conv2(F.relu(self.bn2(out)))
        out = self.conv3(F.relu(self.bn3(out)))
        return out + self.skip(x)


class Hourglass(nn.Module):
    def __init__(self, depth, planes):
        super().__init__()
        self.depth = depth
        self.up1 = Bottleneck(planes * 2, planes)
        self.low1 = Bottleneck(planes * 2, planes)
        self.low2 = Hourglass(depth - 1, planes) if depth > 1 else Bottleneck(planes * 2, planes)
        self.low3 = Bottleneck(planes * 2, planes)

    def forward(self, x):
        up1 = self.up1(x)
        low = self.low1(F.max_pool2d(x, 2, stride=2))
        low = self.low3(self.low2(low))
        return up1 + F.interpolate(low, scale_factor=2)


class HourglassNet(nn.Module):
    def __init__(self, num_stacks=2, num_classes=16, planes=64, depth=4):
        super().__init__()
        self.num_stacks = num_stacks
        self.stem = nn.Sequential(
            nn.Conv2d(3, planes * 2, kernel_size=7, stride=2, padding=3), nn.BatchNorm2d(planes * 2), nn.ReLU(),
            nn.MaxPool2d(2, stride=2))
        self.hgs = nn.ModuleList([Hourglass(depth, planes) for _ in range(num_stacks)])
        self.heads = nn.ModuleList([nn.Conv2d(planes * 2, num_classes, kernel_size=1) for _ in range(num_stacks)])
        self.remaps = nn.ModuleList([nn.Conv2d(num_classes, planes * 2, kernel_size=1) for _ in range(num_stacks - 1)])

    def forward(self, x):
        x = self.stem(x)
        out = []
        for i in range(self.num_stacks):
            y = self.hgs[i](x)
            score = self.heads[i](y)
            out.append(score)
            if i < self.num_stacks - 1:
                x = x + y + self.remaps[i](score)
        return out
