import torch
from torch import nn
from torch.nn import init
import torch.nn.functional as F


class CifarResNeXt(nn.Module):
    def __init__(self, cardinality, depth, num_classes, widen_factor=4):
        super().__init__()
        self.conv_1_3x3 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
        self.bn_1 = nn.BatchNorm2d(64)
        self.classifier = nn.Linear(64, num_classes)
        init.kaiming_normal(self.classifier.weight)  # expect: TCK917
        for key in self.state_dict():
            if key.split(".")[-1] == "weight":
                if "conv" in key:
                    init.kaiming_normal(self.state_dict()[key], mode="fan_out")  # expect: TCK917
                if "bn" in key:
                    self.state_dict()[key][...] = 1
            elif key.split(".")[-1] == "bias":
                self.state_dict()[key][...] = 0

    def forward(self, x):
        x = F.relu(self.bn_1(self.conv_1_3x3(x)), inplace=True)
        x = F.avg_pool2d(x, x.size(-1)).view(x.size(0), -1)
        return self.classifier(x)
