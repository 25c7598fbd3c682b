import torch.nn.functional as F
from torch import nn
from torch.nn.utils.parametrizations import weight_norm


def WNConv1d(*args, **kwargs):
    act = kwargs.pop("act", True)
    conv = weight_norm(nn.Conv1d(*args, **kwargs))
    if not act:
        return conv
    return nn.Sequential(conv, nn.LeakyReLU(0.1))


def WNConv2d(*args, **kwargs):
    act = kwargs.pop("act", True)
    conv = weight_norm(nn.Conv2d(*args, **kwargs))
    if not act:
        return conv
    return nn.Sequential(conv, nn.LeakyReLU(0.1))


class MPD(nn.Module):
    def __init__(self, period, n_channels=1):
        super().__init__()
        self.period = period
        self.convs = nn.ModuleList([
            WNConv2d(n_channels, 32, (5, 1), (3, 1), padding=(2, 0)),
            WNConv2d(32, 128, (5, 1), (3, 1), padding=(2, 0)),
            WNConv2d(128, 512, (5, 1), (3, 1), padding=(2, 0)),
        ])
        self.conv_post = WNConv2d(512, 1, kernel_size=(3, 1), padding=(1, 0), act=False)

    def forward(self, x):
        t = x.shape[-1]
        x = F.pad(x, (0, self.period - t % self.period), mode="reflect")
        x = x.view(x.shape[0], x.shape[1], -1, self.period)
        fmap = []
        for layer in self.convs:
            x = layer(x)
            fmap.append(x)
        fmap.append(self.conv_post(x))
        return fmap


class MSD(nn.Module):
    def __init__(self, n_channels=1):
        super().__init__()
        self.convs = nn.ModuleList([WNConv1d(n_channels, 16, 15, 1, padding=7), WNConv1d(16, 64, 41, 4, groups=4, padding=20)])
        self.conv_post = WNConv1d(64, 1, 3, 1, padding=1, act=False)

    def forward(self, x):
        fmap = []
        for layer in self.convs:
            x = layer(x)
            fmap.append(x)
        fmap.append(self.conv_post(x))
        return fmap
