import torch.nn as nn


class RefineNetDilated(nn.Module):
    def __init__(self, channels=1, ngf=64):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(channels, ngf, 3, padding=1),
            nn.BatchNorm2d(ngf),
            nn.ELU(),
            nn.Conv2d(ngf, ngf, 3, padding=2, dilation=2),
            nn.BatchNorm2d(ngf),
            nn.ELU(),
            nn.Dropout2d(0.1),
            nn.Conv2d(ngf, channels, 3, padding=1),
        )

    def forward(self, x):
        return self.net(x)
