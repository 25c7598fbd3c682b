import itertools

import torch
import torch.nn as nn


class Anchors(nn.Module):
    def __init__(self, anchor_scale=4.0, strides=(8, 16, 32)):
        super().__init__()
        self.anchor_scale = anchor_scale
        self.strides = strides

    def forward(self, image):
        boxes_all = []
        for stride in self.strides:
            h, w = image.shape[2] // stride, image.shape[3] // stride
            size = self.anchor_scale * stride
            for y, x in itertools.product(range(h), range(w)):
                cy, cx = (y + 0.5) * stride, (x + 0.5) * stride
                boxes_all.append([cy - size / 2, cx - size / 2, cy + size / 2, cx + size / 2])
        return torch.tensor(boxes_all, dtype=image.dtype, device=image.device).unsqueeze(0)


class EfficientDetBackbone(nn.Module):
    def __init__(self, num_classes=80, compound_coef=0):
        super().__init__()
        width = 64 + 16 * compound_coef
        self.backbone_net = nn.Sequential(
            nn.Conv2d(3, width, 3, 2, 1), nn.BatchNorm2d(width), nn.SiLU(),
            nn.Conv2d(width, width, 3, 2, 1), nn.BatchNorm2d(width), nn.SiLU(),
            nn.Conv2d(width, width, 3, 2, 1), nn.BatchNorm2d(width), nn.SiLU(),
        )
        self.down = nn.ModuleList([nn.Conv2d(width, width, 3, 2, 1) for _ in range(2)])
        self.regressor = nn.Conv2d(width, 4, 3, padding=1)
        self.classifier = nn.Conv2d(width, num_classes, 3, padding=1)
        self.anchors = Anchors()

    def forward(self, inputs):
        feats = [self.backbone_net(inputs)]
        for conv in self.down:
            feats.append(conv(feats[-1]))
        regression = torch.cat([self.regressor(f).flatten(2).transpose(1, 2) for f in feats], dim=1)
        classification = torch.cat([self.classifier(f).flatten(2).transpose(1, 2) for f in feats], dim=1).sigmoid()
        return feats, regression, classification, self.anchors(inputs)
