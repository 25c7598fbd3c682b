import torch
import torch.nn as nn
from torchvision import models as vision_models


class ConvBase(nn.Module):
    def forward(self, inputs):
        return self.nets(inputs)


class ResNet18Conv(ConvBase):
    def __init__(self, input_channel=3, pretrained=False, input_coord_conv=False):
        super(ResNet18Conv, self).__init__()
        net = vision_models.resnet18(weights=vision_models.ResNet18_Weights.DEFAULT if pretrained else None)
        if input_channel != 3:
            net.conv1 = nn.Conv2d(input_channel, 64, kernel_size=7, stride=2, padding=3, bias=False)
        self._input_coord_conv = input_coord_conv
        self._input_channel = input_channel
        self.nets = torch.nn.Sequential(*(list(net.children())[:-2]))
