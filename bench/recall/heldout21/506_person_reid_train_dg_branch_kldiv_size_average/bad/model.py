import torch.nn as nn
from torchvision import models


class ClassBlock(nn.Module):
    def __init__(self, input_dim, class_num, droprate=0.5, num_bottleneck=512):
        super().__init__()
        self.add_block = nn.Sequential(
            nn.Linear(input_dim, num_bottleneck), nn.BatchNorm1d(num_bottleneck), nn.Dropout(p=droprate)
        )
        self.classifier = nn.Linear(num_bottleneck, class_num)

    def forward(self, x):
        return self.classifier(self.add_block(x))


class ft_net(nn.Module):
    def __init__(self, class_num, droprate=0.5):
        super().__init__()
        backbone = models.resnet50(weights=None)
        backbone.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        backbone.fc = nn.Identity()
        self.model = backbone
        self.classifier = ClassBlock(2048, class_num, droprate)

    def forward(self, x):
        return self.classifier(self.model(x))
