import torch
import torch.nn as nn
import torch.nn.functional as F


class PPM(nn.Module):
    def __init__(self, in_dim, reduction_dim, bins):
        super().__init__()
        self.features = nn.ModuleList([
            nn.Sequential(nn.AdaptiveAvgPool2d(b), nn.Conv2d(in_dim, reduction_dim, 1, bias=False),
                          nn.BatchNorm2d(reduction_dim), nn.ReLU(inplace=True))
            for b in bins
        ])

    def forward(self, x):
        size = x.shape[2:]
        out = [x] + [F.interpolate(f(x), size, mode="bilinear", align_corners=True) for f in self.features]
        return torch.cat(out, 1)


class PSPNet(nn.Module):
    def __init__(self, classes=21, zoom_factor=8):
        super().__init__()
        self.zoom_factor = zoom_factor
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
            nn.Conv2d(64, 128, 3, stride=2, padding=1), nn.BatchNorm2d(128), nn.ReLU(inplace=True),
            nn.Conv2d(128, 256, 3, stride=2, padding=1), nn.BatchNorm2d(256), nn.ReLU(inplace=True),
        )
        self.ppm = PPM(256, 64, (1, 2, 3, 6))
        self.cls = nn.Sequential(nn.Conv2d(512, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU(inplace=True),
                                 nn.Dropout2d(0.1), nn.Conv2d(128, classes, 1))

    def forward(self, x):
        h, w = x.shape[2:]
        out = self.cls(self.ppm(self.backbone(x)))
        if self.zoom_factor != 1:
            out = F.interpolate(out, size=(h, w), mode="bilinear", align_corners=True)
        return out
