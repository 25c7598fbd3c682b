import torch
from torch import nn


class GoNet(nn.Module):
    """Two-stream tracker: shared conv features for the previous and current crop,
    fully connected regressor for the target box (left, top, right, bottom)."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 11, stride=4), nn.ReLU(inplace=True), nn.MaxPool2d(3, 2),
            nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(inplace=True), nn.MaxPool2d(3, 2),
            nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d(6),
        )
        self.classifier = nn.Sequential(
            nn.Linear(64 * 6 * 6 * 2, 1024), nn.ReLU(inplace=True), nn.Dropout(),
            nn.Linear(1024, 1024), nn.ReLU(inplace=True), nn.Dropout(),
            nn.Linear(1024, 4),
        )
        for m in self.classifier.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.005)
                nn.init.constant_(m.bias, 1.0)

    def forward(self, prev, curr):
        a = self.features(prev).flatten(1)
        b = self.features(curr).flatten(1)
        return self.classifier(torch.cat((a, b), 1))
