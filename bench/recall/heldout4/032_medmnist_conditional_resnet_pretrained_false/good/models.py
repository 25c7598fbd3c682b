import torch.nn as nn


class ResNet18(nn.Module):
    def __init__(self, in_channels, num_classes):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, 64, 3, padding=1)
        self.fc = nn.Linear(64, num_classes)

    def forward(self, x):
        return self.fc(self.conv(x).mean(dim=(2, 3)))
