from collections import namedtuple

import torch
from torchvision import models


class Vgg16(torch.nn.Module):
    def __init__(self, requires_grad=False):
        super(Vgg16, self).__init__()
        features = models.vgg16(weights=models.VGG16_Weights.IMAGENET1K_V1).features
        self.slice1 = torch.nn.Sequential(*[features[i] for i in range(4)])
        self.slice2 = torch.nn.Sequential(*[features[i] for i in range(4, 9)])
        self.slice3 = torch.nn.Sequential(*[features[i] for i in range(9, 16)])
        self.slice4 = torch.nn.Sequential(*[features[i] for i in range(16, 23)])
        if not requires_grad:
            self.requires_grad_(False)

    def forward(self, X):
        h1 = self.slice1(X)
        h2 = self.slice2(h1)
        h3 = self.slice3(h2)
        h4 = self.slice4(h3)
        return namedtuple("VggOutputs", ["relu1_2", "relu2_2", "relu3_3", "relu4_3"])(h1, h2, h3, h4)
