import torch.nn as nn


class SSD(nn.Module):
    def __init__(self, num_classes, config):
        super().__init__()
        self.config = config
        self.base_net = nn.Sequential(nn.Conv2d(3, 32, 3, stride=2, padding=1), nn.ReLU())
        self.classification_headers = nn.ModuleList([nn.Conv2d(32, 6 * num_classes, 3, padding=1)])
        self.regression_headers = nn.ModuleList([nn.Conv2d(32, 6 * 4, 3, padding=1)])

    def forward(self, x):
        x = self.base_net(x)
        return self.classification_headers[0](x), self.regression_headers[0](x)


def create_mobilenetv1_ssd(num_classes, config=None):
    return SSD(num_classes, config)
