import math

import torch
import torch.nn as nn


class LaneAnchorNet(nn.Module):
    def __init__(self, backbone, feat_channels=64, n_offsets=72, img_w=640):
        super().__init__()
        self.backbone = backbone
        self.n_offsets = n_offsets
        self.img_w = img_w
        self.left_angles = [72.0, 60.0, 49.0, 39.0]
        self.right_angles = [108.0, 120.0, 131.0, 141.0]
        self.anchors, self.anchor_starts = self.generate_anchors(lateral_n=24)  # expect: TCK606
        self.cls_layer = nn.Linear(feat_channels, 2)
        self.reg_layer = nn.Linear(feat_channels, n_offsets + 1)

    def forward(self, feats):
        cls_logits = self.cls_layer(feats)
        reg = self.reg_layer(feats)
        proposals = torch.zeros((*cls_logits.shape[:2], 5 + self.n_offsets), device=feats.device)
        proposals += self.anchors
        proposals[:, :, :2] = cls_logits
        proposals[:, :, 4:] += reg
        return proposals

    def generate_anchors(self, lateral_n):
        left, left_starts = self.side_anchors(self.left_angles, 0.0, lateral_n)
        right, right_starts = self.side_anchors(self.right_angles, 1.0, lateral_n)
        return torch.cat([left, right]), torch.cat([left_starts, right_starts])

    def side_anchors(self, angles, x, n_origins):
        ys = torch.linspace(1, 0, steps=self.n_offsets)
        anchors = torch.zeros((n_origins * len(angles), 5 + self.n_offsets))
        starts = torch.zeros((n_origins * len(angles), 2))
        for i, y in enumerate(torch.linspace(1.0, 0.0, n_origins).tolist()):
            for j, angle in enumerate(angles):
                k = i * len(angles) + j
                anchors[k, 2] = 1 - y
                anchors[k, 3] = x
                anchors[k, 5:] = (x + (y - ys) / math.tan(math.radians(angle))) * self.img_w
                starts[k] = torch.tensor([x, y])
        return anchors, starts

    def to(self, *args, **kwargs):
        moved = super().to(*args, **kwargs)
        moved.anchors = moved.anchors.to(*args, **kwargs)
        moved.anchor_starts = moved.anchor_starts.to(*args, **kwargs)
        return moved


def build_model(backbone, n_gpus):
    model = LaneAnchorNet(backbone).to(torch.device("cuda"))
    if n_gpus > 1:
        model = nn.DataParallel(model)
    return model
