import torch.nn as nn

defaultcfg = [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512]


class vgg(nn.Module):
    def __init__(self, num_classes=10, cfg=None):
        super().__init__()
        cfg = cfg or defaultcfg
        layers, in_channels = [], 3
        for v in cfg:
            if v == "M":
                layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
            else:
                layers += [nn.Conv2d(in_channels, v, 3, padding=1, bias=False), nn.BatchNorm2d(v), nn.ReLU(inplace=True)]
                in_channels = v
        self.feature = nn.Sequential(*layers)
        self.classifier = nn.Linear(cfg[-1], num_classes)

    def forward(self, x):
        x = self.feature(x)
        x = nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.classifier(x)
