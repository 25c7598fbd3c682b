import torch
import torch.nn as nn
import torch.nn.functional as F


class ExistHead(nn.Module):
    """Predicts, for each lane slot, whether the lane is present in the image."""

    def __init__(self, in_channels, num_lanes, feat_hw):
        super().__init__()
        self.dropout = nn.Dropout2d(0.1)
        self.conv = nn.Conv2d(in_channels, num_lanes + 1, 1)
        self.fc1 = nn.Linear((num_lanes + 1) * (feat_hw[0] // 2) * (feat_hw[1] // 2), 128)
        self.fc2 = nn.Linear(128, num_lanes)

    def forward(self, x):
        x = self.conv(self.dropout(x))
        x = F.softmax(x, dim=1)
        x = F.avg_pool2d(x, 2, stride=2)
        x = x.flatten(1)
        x = F.relu(self.fc1(x))
        x = self.fc2(x)
        return torch.sigmoid(x)


class LaneNet(nn.Module):
    def __init__(self, num_lanes=4, feat_hw=(36, 100)):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 64, 3, stride=2, padding=1),
            nn.BatchNorm2d(64),
            nn.ReLU(inplace=True),
            nn.Conv2d(64, 128, 3, stride=4, padding=1),
            nn.BatchNorm2d(128),
            nn.ReLU(inplace=True),
        )
        self.seg_head = nn.Conv2d(128, num_lanes + 1, 1)
        self.exist_head = ExistHead(128, num_lanes, feat_hw)

    def forward(self, img):
        feat = self.backbone(img)
        return {"seg": self.seg_head(feat), "exist": self.exist_head(feat)}
