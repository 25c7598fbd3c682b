import torch
from torch import nn


def norm_angle(angle):
    return min(max((abs(angle) - 45.0) / 45.0, -1.0), 1.0)


class Branch(nn.Module):
    def __init__(self, feat_dim=256):
        super().__init__()
        self.fc1 = nn.Linear(feat_dim, feat_dim)
        self.relu = nn.ReLU(inplace=True)
        self.fc2 = nn.Linear(feat_dim, feat_dim)

    def forward(self, x, yaw):
        residual = self.fc2(self.relu(self.fc1(x)))
        return x + yaw.view(-1, 1) * residual


class AverageMeter(object):
    """Computes and stores the average and current value"""

    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count
