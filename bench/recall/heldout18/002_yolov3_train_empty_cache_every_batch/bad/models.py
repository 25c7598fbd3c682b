import torch
import torch.nn as nn


class YOLOLayer(nn.Module):
    def __init__(self, in_ch, num_anchors=3, num_classes=80):
        super().__init__()
        self.pred = nn.Conv2d(in_ch, num_anchors * (5 + num_classes), 1)
        self.metrics = {}

    def forward(self, x, targets=None):
        out = self.pred(x)
        if targets is None:
            return out, None
        loss = out.float().pow(2).mean() * 1e-3 + (out.mean() - targets.mean()).abs()
        self.metrics = {"loss": loss.item(), "grid_size": x.shape[-1]}
        return out, loss


class Darknet(nn.Module):
    def __init__(self, num_classes=80):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.LeakyReLU(0.1),
            nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.LeakyReLU(0.1),
        )
        self.yolo_layers = nn.ModuleList([YOLOLayer(64, num_classes=num_classes)])
        self.seen = 0

    def forward(self, x, targets=None):
        feat = self.backbone(x)
        outputs, total = [], 0
        for yolo in self.yolo_layers:
            out, loss = yolo(feat, targets)
            outputs.append(out)
            if loss is not None:
                total = total + loss
        return (total, outputs) if targets is not None else outputs
