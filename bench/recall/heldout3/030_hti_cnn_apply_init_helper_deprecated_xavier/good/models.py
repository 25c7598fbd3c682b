import torch.nn as nn


def init_weights(m):
    if isinstance(m, (nn.Conv2d, nn.Linear)):
        nn.init.xavier_uniform_(m.weight)
        if m.bias is not None:
            nn.init.constant_(m.bias, 0.0)


class GapNet(nn.Module):
    def __init__(self, n_channels=5, n_classes=209):
        super(GapNet, self).__init__()
        self.features = nn.Sequential(
            nn.Conv2d(n_channels, 32, 3, padding=1), nn.SELU(),
            nn.Conv2d(32, 64, 3, padding=1), nn.SELU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.classifier = nn.Linear(64, n_classes)
        self.apply(init_weights)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))
