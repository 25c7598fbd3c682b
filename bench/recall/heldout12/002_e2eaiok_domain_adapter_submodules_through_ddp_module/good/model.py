import torch
import torch.nn as nn


class Backbone(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        feat = self.features(x)
        return self.fc(feat), feat


class Discriminator(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, feat):
        return self.net(feat).squeeze(-1)


class TransferrableModel(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.backbone = Backbone(num_classes)
        self.adapter = Discriminator()

    def forward(self, x):
        logits, feat = self.backbone(x)
        return logits, self.adapter(feat)
