import torch
import torch.nn as nn
import torch.nn.functional as F


class HybridNetsBackbone(nn.Module):
    def __init__(self, num_classes=1, seg_classes=3):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(3, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.SiLU(),
            nn.Conv2d(32, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.SiLU(),
        )
        self.det_head = nn.Conv2d(64, num_classes + 4, 1)
        self.seg_head = nn.Conv2d(64, seg_classes, 1)

    def forward(self, x):
        f = self.encoder(x)
        seg = F.interpolate(self.seg_head(f), size=x.shape[-2:], mode="bilinear", align_corners=False)
        det = self.det_head(f)
        return det[:, 4:], det[:, :4], seg


class ModelWithLoss(nn.Module):
    """Runs the network and its three losses in one forward."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, imgs, annot, seg_annot):
        classification, regression, segmentation = self.model(imgs)
        cls_loss = F.binary_cross_entropy_with_logits(classification.mean((2, 3)), annot[:, :, 4].clamp(0, 1).mean(1, keepdim=True))
        reg_loss = F.smooth_l1_loss(regression.mean((2, 3)), annot[:, 0, :4])
        seg_loss = F.cross_entropy(segmentation, seg_annot)
        return cls_loss, reg_loss, seg_loss, regression, classification, segmentation
