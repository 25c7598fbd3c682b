import torch
from torch import nn
import torch.nn.functional as F


class DenseNet(nn.Module):
    def __init__(self, growth_rate=32, num_init_features=64, num_classes=1000):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, num_init_features, kernel_size=7, stride=2, padding=3, bias=False),
            nn.BatchNorm2d(num_init_features),
            nn.ReLU(inplace=True),
        )
        self.classifier = nn.Linear(num_init_features, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal(m.weight.data)  # expect: TCK917
            elif isinstance(m, nn.BatchNorm2d):
                m.weight.data.fill_(1)
                m.bias.data.zero_()
            elif isinstance(m, nn.Linear):
                m.bias.data.zero_()

    def forward(self, x):
        out = F.adaptive_avg_pool2d(self.features(x), (1, 1)).view(x.size(0), -1)
        return self.classifier(out)
