import torch
from torch import nn


class Generator(nn.Module):
    def __init__(self, code_size=128, size=32):
        super().__init__()
        self.size = size
        self.fc = nn.Linear(code_size, 64 * (size // 4) ** 2)
        self.body = nn.Sequential(
            nn.Upsample(scale_factor=2), nn.Conv2d(64, 32, 3, padding=1), nn.LeakyReLU(0.2),
            nn.Upsample(scale_factor=2), nn.Conv2d(32, 3, 3, padding=1), nn.Tanh(),
        )

    def forward(self, z):
        h = self.fc(z).view(z.size(0), 64, self.size // 4, self.size // 4)
        return self.body(h)


class Discriminator(nn.Module):
    def __init__(self, size=32):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 32, 3, stride=2, padding=1), nn.LeakyReLU(0.2),
            nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.LeakyReLU(0.2),
            nn.Flatten(), nn.Linear(64 * (size // 4) ** 2, 1),
        )

    def forward(self, x):
        return self.body(x)
