from collections import namedtuple

import torch
import torch.nn as nn
import torch.nn.init as init
from torchvision import models
from torchvision.models import VGG16_BN_Weights


def init_weights(modules):
    for m in modules:
        if isinstance(m, nn.Conv2d):
            init.xavier_uniform_(m.weight)
            if m.bias is not None:
                m.bias.data.zero_()
        elif isinstance(m, nn.BatchNorm2d):
            m.weight.data.fill_(1)
            m.bias.data.zero_()


class VGG16BNFeatures(nn.Module):
    """VGG16-BN backbone cut into five slices for the CRAFT text detector."""

    def __init__(self, pretrained=True, freeze=True):
        super().__init__()
        weights = VGG16_BN_Weights.DEFAULT if pretrained else None
        features = models.vgg16_bn(weights=weights).features
        self.slice1 = nn.Sequential(*[features[i] for i in range(12)])
        self.slice2 = nn.Sequential(*[features[i] for i in range(12, 19)])
        self.slice3 = nn.Sequential(*[features[i] for i in range(19, 29)])
        self.slice4 = nn.Sequential(*[features[i] for i in range(29, 39)])
        self.slice5 = nn.Sequential(
            nn.MaxPool2d(kernel_size=3, stride=1, padding=1),
            nn.Conv2d(512, 1024, kernel_size=3, padding=6, dilation=6),
            nn.Conv2d(1024, 1024, kernel_size=1),
        )
        if not pretrained:
            init_weights(self.slice1.modules())
            init_weights(self.slice2.modules())
            init_weights(self.slice3.modules())
            init_weights(self.slice4.modules())
        init_weights(self.slice5.modules())
        if freeze:
            for param in self.slice1.parameters():
                param.requires_grad_(False)

    def forward(self, x):
        h = self.slice1(x)
        relu2_2 = h
        h = self.slice2(h)
        relu3_2 = h
        h = self.slice3(h)
        relu4_3 = h
        h = self.slice4(h)
        relu5_3 = h
        h = self.slice5(h)
        fc7 = h
        outputs = namedtuple("VggOutputs", ["fc7", "relu5_3", "relu4_3", "relu3_2", "relu2_2"])
        return outputs(fc7, relu5_3, relu4_3, relu3_2, relu2_2)
