import torch
import torch.nn as nn


class ConvBlock(nn.Module):
    def __init__(self):
        super().__init__()
        block = [nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU()]
        self.model = nn.Sequential(*block)

    def forward(self, x):
        return self.model(x)


class SimpleNetwork(nn.Module):
    def __init__(self, num_resnet_blocks=6):
        super().__init__()
        layers = [ConvBlock() for _ in range(num_resnet_blocks)]
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net.forward(x)  # expect: TCK105


model = SimpleNetwork()
out = model(torch.randn(1, 3, 32, 32))
