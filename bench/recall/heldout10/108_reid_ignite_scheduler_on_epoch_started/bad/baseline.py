import torch
import torch.nn.functional as F
from torch import nn
from torchvision.models import resnet18


class Baseline(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        backbone = resnet18(weights=None)
        backbone.fc = nn.Identity()
        self.base = backbone
        self.bottleneck = nn.BatchNorm1d(512)
        self.classifier = nn.Linear(512, num_classes, bias=False)

    def forward(self, x):
        feat = self.base(x)
        if self.training:
            return self.classifier(self.bottleneck(feat)), feat
        return F.normalize(self.bottleneck(feat), dim=1)
