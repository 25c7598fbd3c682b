import torch.nn as nn

DEFAULT_CFG = [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M", 512, 512, 512, 512]


class vgg(nn.Module):
    """VGG-19 with batch norm for CIFAR; `cfg` lets a pruned (slimmed) network be rebuilt."""

    def __init__(self, num_classes=10, cfg=None):
        super().__init__()
        self.cfg = cfg or DEFAULT_CFG
        self.feature = self._make_layers(self.cfg)
        self.classifier = nn.Linear(self.cfg[-1], num_classes)

    @staticmethod
    def _make_layers(cfg):
        layers, in_ch = [], 3
        for v in cfg:
            if v == "M":
                layers.append(nn.MaxPool2d(2, 2))
            else:
                layers += [nn.Conv2d(in_ch, v, 3, padding=1, bias=False), nn.BatchNorm2d(v), nn.ReLU(inplace=True)]
                in_ch = v
        return nn.Sequential(*layers)

    def forward(self, x):
        x = nn.functional.avg_pool2d(self.feature(x), 2)
        return self.classifier(x.flatten(1))
