from torch import nn

CONFIGS = {
    "VGG11": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "VGG13": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
}


class CNN(nn.Module):
    def __init__(self, model_code, in_channels, out_dim, use_bn=True):
        super().__init__()
        self.features = self._make_layers(CONFIGS[model_code], in_channels, use_bn)
        self.classifier = nn.Sequential(nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, out_dim))

    def forward(self, x):
        x = self.features(x)
        x = x.flatten(1)
        return self.classifier(x)

    @staticmethod
    def _make_layers(config, in_channels, use_bn):
        layers = []
        for item in config:
            if item == "M":
                layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
                continue
            layers.append(nn.Conv2d(in_channels, item, kernel_size=3, padding=1))
            if use_bn:
                layers.append(nn.BatchNorm2d(item))
            layers.append(nn.ReLU())
            in_channels = item
        return nn.Sequential(*layers)
