import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyDetector(nn.Module):
    """Backbone + class/box heads; forward returns the training loss for a batch."""

    def __init__(self, num_classes=20, width=64):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, width, 3, stride=2, padding=1), nn.BatchNorm2d(width), nn.ReLU(),
            nn.Conv2d(width, width, 3, stride=2, padding=1), nn.BatchNorm2d(width), nn.ReLU(),
        )
        self.cls_head = nn.Conv2d(width, num_classes, 1)
        self.box_head = nn.Conv2d(width, 4, 1)

    def forward(self, images, cls_targets, box_targets):
        feats = self.backbone(images)
        cls_loss = F.cross_entropy(self.cls_head(feats), cls_targets)
        box_loss = F.smooth_l1_loss(self.box_head(feats), box_targets)
        return cls_loss + box_loss
