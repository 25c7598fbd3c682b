import torch
import torch.nn as nn


class Model(nn.Module):
    """Stand-in for the YOLOv5 detection model built from a yaml config."""

    def __init__(self, cfg="yolov5s.yaml", nc=80):
        super().__init__()
        self.cfg = cfg
        self.nc = nc
        self.stride = torch.tensor([8.0, 16.0, 32.0])
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 32, 3, 2, 1), nn.SiLU(), nn.Conv2d(32, 64, 3, 2, 1), nn.SiLU(), nn.Conv2d(64, 128, 3, 2, 1)
        )
        self.head = nn.Conv2d(128, 3 * (nc + 5), 1)

    def forward(self, x):
        return self.head(self.backbone(x))
