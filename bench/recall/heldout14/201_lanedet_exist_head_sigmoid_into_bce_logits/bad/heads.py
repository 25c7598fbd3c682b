import torch
from torch import nn
import torch.nn.functional as F


class SegDecoder(nn.Module):
    def __init__(self, in_channels, num_classes):
        super().__init__()
        self.dropout = nn.Dropout2d(0.1)
        self.conv = nn.Conv2d(in_channels, num_classes, 1)

    def forward(self, feats):
        seg = self.conv(self.dropout(feats))
        seg = F.interpolate(seg, scale_factor=8, mode="bilinear", align_corners=False)
        return {"seg": seg}


class LaneExistHead(nn.Module):
    """Predicts, per lane slot, whether the lane is present in the image."""

    def __init__(self, in_channels, num_classes, feat_h, feat_w):
        super().__init__()
        self.dropout = nn.Dropout2d(0.1)
        self.conv = nn.Conv2d(in_channels, num_classes, 1)
        self.fc1 = nn.Linear(num_classes * (feat_h // 2) * (feat_w // 2), 128)
        self.fc2 = nn.Linear(128, num_classes - 1)

    def forward(self, feats):
        x = self.conv(self.dropout(feats))
        x = F.softmax(x, dim=1)
        x = F.avg_pool2d(x, 2, stride=2)
        x = x.flatten(1)
        x = F.relu(self.fc1(x))
        x = torch.sigmoid(self.fc2(x))
        return {"exist": x}
