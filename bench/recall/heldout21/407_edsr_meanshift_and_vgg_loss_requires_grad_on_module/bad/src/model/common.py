import torch
import torch.nn as nn


def default_conv(in_channels, out_channels, kernel_size, bias=True):
    return nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2, bias=bias)


class MeanShift(nn.Conv2d):
    """Fixed 1x1 conv that subtracts (sign=-1) or adds back (sign=1) the dataset RGB mean."""

    def __init__(self, rgb_range, rgb_mean=(0.4488, 0.4371, 0.4040), rgb_std=(1.0, 1.0, 1.0), sign=-1):
        super().__init__(3, 3, kernel_size=1)
        std = torch.tensor(rgb_std)
        with torch.no_grad():
            self.weight.copy_(torch.eye(3).view(3, 3, 1, 1) / std.view(3, 1, 1, 1))
            self.bias.copy_(sign * rgb_range * torch.tensor(rgb_mean) / std)
        self.requires_grad = False  # expect: TCK611


class ResBlock(nn.Module):
    def __init__(self, conv, n_feats, kernel_size, bias=True, act=None, res_scale=1.0):
        super().__init__()
        self.body = nn.Sequential(
            conv(n_feats, n_feats, kernel_size, bias=bias),
            act if act is not None else nn.ReLU(True),
            conv(n_feats, n_feats, kernel_size, bias=bias),
        )
        self.res_scale = res_scale

    def forward(self, x):
        return x + self.body(x) * self.res_scale


class Upsampler(nn.Sequential):
    def __init__(self, conv, scale, n_feats):
        layers = []
        if scale in (2, 4, 8):
            for _ in range({2: 1, 4: 2, 8: 3}[scale]):
                layers += [conv(n_feats, 4 * n_feats, 3), nn.PixelShuffle(2)]
        elif scale == 3:
            layers += [conv(n_feats, 9 * n_feats, 3), nn.PixelShuffle(3)]
        else:
            raise NotImplementedError(scale)
        super().__init__(*layers)
