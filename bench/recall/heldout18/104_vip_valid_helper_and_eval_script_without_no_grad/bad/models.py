import torch.nn as nn


class C3D(nn.Module):
    """Small 3D-conv video classifier."""

    def __init__(self, num_classes=101):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv3d(3, 64, kernel_size=3, padding=1), nn.ReLU(inplace=True), nn.MaxPool3d((1, 2, 2)),
            nn.Conv3d(64, 128, kernel_size=3, padding=1), nn.ReLU(inplace=True), nn.MaxPool3d(2),
            nn.Conv3d(128, 256, kernel_size=3, padding=1), nn.ReLU(inplace=True), nn.AdaptiveAvgPool3d(1),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(0.5), nn.Linear(256, num_classes))

    def forward(self, x):
        return self.classifier(self.features(x))
