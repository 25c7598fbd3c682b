import torch
import torch.nn as nn
import torch.nn.functional as F


class PointFeatureNet(nn.Module):
    """Per-point descriptor network (a dense stand-in for a sparse-conv FCGF backbone)."""

    def __init__(self, in_channels=1, feat_dim=32, hidden=128):
        super().__init__()
        self.mlp1 = nn.Sequential(nn.Linear(in_channels + 3, hidden), nn.BatchNorm1d(hidden), nn.ReLU())
        self.mlp2 = nn.Sequential(nn.Linear(hidden * 2, hidden), nn.BatchNorm1d(hidden), nn.ReLU())
        self.out = nn.Linear(hidden, feat_dim)

    def forward(self, xyz, feats):
        h = self.mlp1(torch.cat([xyz, feats], dim=-1))
        g = h.max(dim=0, keepdim=True).values.expand_as(h)
        h = self.mlp2(torch.cat([h, g], dim=-1))
        return F.normalize(self.out(h), dim=-1)
