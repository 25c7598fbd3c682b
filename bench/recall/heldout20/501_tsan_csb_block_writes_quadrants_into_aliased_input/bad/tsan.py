import torch
import torch.nn as nn
import torch.nn.functional as F


class DenseLayer(nn.Module):
    def __init__(self, n_channels, growth_rate):
        super().__init__()
        self.conv = nn.Conv2d(n_channels, growth_rate, kernel_size=3, padding=1, bias=False)

    def forward(self, x):
        return torch.cat((x, F.relu(self.conv(x))), 1)


class DRB(nn.Module):
    """Dense residual branch."""

    def __init__(self, n_channels, n_denselayer, growth_rate):
        super().__init__()
        channels = n_channels
        layers = []
        for _ in range(n_denselayer):
            layers.append(DenseLayer(channels, growth_rate))
            channels += growth_rate
        self.dense_layers = nn.Sequential(*layers)
        self.conv_1x1 = nn.Conv2d(channels, n_channels, kernel_size=1, padding=0, bias=False)

    def forward(self, x):
        out = self.conv_1x1(self.dense_layers(x))
        return x + out


class CSB(nn.Module):
    """Cuts the map into four quadrants, mixes them with a 1x1 conv, writes them back."""

    def __init__(self, n_feats):
        super().__init__()
        self.conv1 = nn.Conv2d(n_feats * 4, n_feats * 4, kernel_size=1, padding=0, bias=False)

    def forward(self, x):
        h2, w2 = x.size(2) // 2, x.size(3) // 2
        f1 = x[:, :, :h2, :w2]
        f2 = x[:, :, h2:, :w2]
        f3 = x[:, :, :h2, w2:]
        f4 = x[:, :, h2:, w2:]
        f_all = self.conv1(torch.cat([f1, f2, f3, f4], 1))
        c = f_all.size(1) // 4
        out = x  # expect: TCK701
        out[:, :, :h2, :w2] = f_all[:, :c]
        out[:, :, h2:, :w2] = f_all[:, c:2 * c]
        out[:, :, :h2, w2:] = f_all[:, 2 * c:3 * c]
        out[:, :, h2:, w2:] = f_all[:, 3 * c:]
        return out


class FirstOrder(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d((1, 1))

    def forward(self, x):
        first_c = torch.sigmoid(self.pool(x)) * x
        xh = x.permute(0, 2, 1, 3)
        first_h = (torch.sigmoid(self.pool(xh)) * xh).permute(0, 2, 1, 3)
        xw = x.permute(0, 3, 2, 1)
        first_w = (torch.sigmoid(self.pool(xw)) * xw).permute(0, 3, 2, 1)
        return first_c + first_h + first_w + x


class MCAB(nn.Module):
    """Two branches over the same input: a dense branch and a spatial-attention branch."""

    def __init__(self, n_channels, n_denselayer, n_feats):
        super().__init__()
        self.drb = DRB(n_channels, n_denselayer, n_feats)
        self.csb = CSB(n_feats)
        self.first = FirstOrder()
        self.conv3 = nn.Conv2d(n_feats, n_feats, kernel_size=3, padding=1, bias=False)

    def forward(self, x):
        down_b = self.drb(x)
        top_b = self.csb(x)
        top_b = self.first(top_b)
        top_b = torch.sigmoid(self.conv3(top_b))
        return down_b * top_b


class TSAN(nn.Module):
    def __init__(self, n_colors=3, n_feats=64, scale=2):
        super().__init__()
        self.head = nn.Conv2d(n_colors, n_feats, 1)
        self.body1 = MCAB(n_feats, 6, n_feats)
        self.body2 = MCAB(n_feats, 6, n_feats)
        self.body3 = MCAB(n_feats, 6, n_feats)
        self.tail = nn.Conv2d(n_feats * 3, n_feats, 1)
        self.up = nn.Sequential(nn.Conv2d(n_feats, n_feats * scale * scale, 3, padding=1), nn.PixelShuffle(scale))
        self.out = nn.Conv2d(n_feats, n_colors, 3, padding=1)

    def forward(self, x):
        first_out = F.relu(self.head(x))
        d1 = self.body1(first_out)
        d2 = self.body2(d1)
        d3 = self.body3(d2)
        out = self.tail(torch.cat([d1, d2, d3], 1)) + first_out
        return self.out(self.up(out))
