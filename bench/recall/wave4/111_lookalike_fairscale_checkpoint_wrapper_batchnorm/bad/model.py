import torch.nn as nn
from fairscale.nn.checkpoint import checkpoint_wrapper


def build_backbone(channels=4):
    seq = nn.Sequential(nn.Conv2d(channels, channels, 3), nn.BatchNorm2d(channels), nn.ReLU())
    return checkpoint_wrapper(seq)


class Net(nn.Module):
    def __init__(self, channels=4, classes=10):
        super().__init__()
        self.backbone = build_backbone(channels)
        self.head = nn.Linear(channels, classes)

    def forward(self, x):
        return self.head(self.backbone(x).mean((2, 3)))
