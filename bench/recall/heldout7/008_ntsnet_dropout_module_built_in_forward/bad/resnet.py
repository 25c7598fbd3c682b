import torch.nn as nn


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride=1):
        super().__init__()
        self.conv = nn.Conv2d(inplanes, planes * 4, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(planes * 4)

    def forward(self, x):
        return nn.functional.relu(self.bn(self.conv(x)))


class ResNet(nn.Module):
    def __init__(self, block, layers, num_classes=1000):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.layer1 = block(64, 64)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(64 * block.expansion, num_classes)

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        feature1 = self.layer1(x)
        x = self.avgpool(feature1)
        x = x.view(x.size(0), -1)
        x = nn.Dropout(p=0.5)(x)  # expect: TCK604
        feature2 = x
        x = self.fc(x)
        return x, feature1, feature2
