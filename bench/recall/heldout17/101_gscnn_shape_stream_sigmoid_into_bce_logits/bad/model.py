import torch
import torch.nn as nn
import torch.nn.functional as F


class GatedSegNet(nn.Module):
    """Tiny regular stream + shape stream segmentation net."""

    def __init__(self, num_classes, criterion=None):
        super().__init__()
        self.criterion = criterion
        self.stem = nn.Sequential(
            nn.Conv2d(3, 32, 3, stride=2, padding=1),
            nn.BatchNorm2d(32),
            nn.ReLU(inplace=True),
        )
        self.body = nn.Sequential(
            nn.Conv2d(32, 64, 3, stride=2, padding=1),
            nn.BatchNorm2d(64),
            nn.ReLU(inplace=True),
        )
        self.shape_conv = nn.Conv2d(32, 16, 3, padding=1)
        self.shape_fuse = nn.Conv2d(16, 1, 1)
        self.sigmoid = nn.Sigmoid()
        self.gate = nn.Conv2d(1, 1, 1)
        self.head = nn.Conv2d(64 + 1, num_classes, 1)

    def forward(self, inp, gts=None):
        size = inp.shape[2:]
        f1 = self.stem(inp)
        f2 = self.body(f1)

        cs = self.shape_fuse(F.relu(self.shape_conv(f1)))
        cs = F.interpolate(cs, size, mode="bilinear", align_corners=True)
        edge_out = self.sigmoid(cs)
        acts = self.sigmoid(self.gate(edge_out))

        acts_small = F.interpolate(acts, f2.shape[2:], mode="bilinear", align_corners=True)
        seg = self.head(torch.cat([f2, acts_small], dim=1))
        seg_out = F.interpolate(seg, size, mode="bilinear", align_corners=True)

        if self.training:
            return self.criterion((seg_out, edge_out), gts)
        return seg_out, edge_out
