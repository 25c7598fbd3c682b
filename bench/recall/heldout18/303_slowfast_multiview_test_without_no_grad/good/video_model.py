import torch
import torch.nn as nn


class SlowOnly3D(nn.Module):
    """A small 3D-conv video classifier with an optional RoI head for detection."""

    def __init__(self, num_classes=400, width=64, detection=False):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv3d(3, width, (1, 7, 7), stride=(1, 2, 2), padding=(0, 3, 3), bias=False),
            nn.BatchNorm3d(width),
            nn.ReLU(inplace=True),
        )
        self.stage = nn.Sequential(
            nn.Conv3d(width, width * 2, (3, 3, 3), padding=1, bias=False),
            nn.BatchNorm3d(width * 2),
            nn.ReLU(inplace=True),
        )
        self.detection = detection
        self.dropout = nn.Dropout(0.5)
        self.head = nn.Linear(width * 2, num_classes)

    def forward(self, x, boxes=None):
        feat = self.stage(self.stem(x))
        if self.detection:
            pooled = feat.mean(dim=(2, 3, 4))[boxes[:, 0].long()]
        else:
            pooled = feat.mean(dim=(2, 3, 4))
        return torch.softmax(self.head(self.dropout(pooled)), dim=-1)
