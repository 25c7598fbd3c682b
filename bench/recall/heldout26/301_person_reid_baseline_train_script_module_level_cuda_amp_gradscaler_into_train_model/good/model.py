"""Re-ID backbones: a ResNet-50 trunk with a bottleneck classifier head."""
import torch.nn as nn
from torchvision import models


class ClassBlock(nn.Module):
    def __init__(self, input_dim, class_num, droprate=0.5, linear_num=512):
        super().__init__()
        self.linear_num = linear_num
        self.add_block = nn.Sequential(
            nn.Linear(input_dim, linear_num),
            nn.BatchNorm1d(linear_num),
            nn.Dropout(p=droprate),
        )
        self.classifier = nn.Linear(linear_num, class_num)

    def forward(self, x):
        return self.classifier(self.add_block(x))


class ft_net(nn.Module):
    def __init__(self, class_num, droprate=0.5, stride=2, linear_num=512):
        super().__init__()
        backbone = models.resnet50(weights="IMAGENET1K_V1")
        if stride == 1:
            backbone.layer4[0].downsample[0].stride = (1, 1)
            backbone.layer4[0].conv2.stride = (1, 1)
        backbone.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        backbone.fc = nn.Identity()
        self.model = backbone
        self.classifier = ClassBlock(2048, class_num, droprate, linear_num=linear_num)

    def forward(self, x):
        return self.classifier(self.model(x))
