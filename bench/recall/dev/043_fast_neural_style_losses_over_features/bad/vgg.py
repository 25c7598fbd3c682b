from collections import namedtuple

import torch
from torchvision import models


class Vgg16(torch.nn.Module):
    def __init__(self, requires_grad=False):
        super().__init__()
        features = models.vgg16(weights=models.VGG16_Weights.DEFAULT).features
        self.slice1 = torch.nn.Sequential(*[features[i] for i in range(4)])
        self.slice2 = torch.nn.Sequential(*[features[i] for i in range(4, 9)])
        if not requires_grad:
            for param in self.parameters():
                param.requires_grad = False

    def forward(self, x):
        h_relu1_2 = self.slice1(x)
        h_relu2_2 = self.slice2(h_relu1_2)
        VggOutputs = namedtuple("VggOutputs", ["relu1_2", "relu2_2"])
        return VggOutputs(h_relu1_2, h_relu2_2)
