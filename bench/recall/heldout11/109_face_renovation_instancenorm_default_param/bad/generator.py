import torch
import torch.nn as nn
import torch.nn.functional as F


def lip2d(x, logit, kernel=3, stride=2, padding=1):
    weight = logit.exp()
    return F.avg_pool2d(x * weight, kernel, stride, padding) / F.avg_pool2d(weight, kernel, stride, padding)


class SoftGate(nn.Module):
    COEFF = 12.0

    def forward(self, x):
        return torch.sigmoid(x).mul(self.COEFF)


class SimplifiedLIP(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.logit = nn.Sequential(
            nn.Conv2d(channels, channels, 3, padding=1, bias=False),
            nn.InstanceNorm2d(channels, affine=True),
            SoftGate(),
        )

    def forward(self, x):
        return lip2d(x, self.logit(x))


class ContentAdaptiveSuppresor(nn.Module):
    def __init__(self, in_nc, ngf, n_2xdown, norm_layer=nn.InstanceNorm2d):
        super().__init__()
        self.n_2xdown = n_2xdown
        self.max_ratio = 16
        kw, pw = 3, 1
        self.head = nn.Sequential(
            nn.Conv2d(in_nc, ngf, kw, stride=1, padding=pw, bias=False),
            norm_layer(ngf),  # expect: TCK609
            nn.ReLU(),
        )
        cur_ratio = 1
        blocks = []
        for i in range(n_2xdown):
            next_ratio = min(cur_ratio * 2, self.max_ratio)
            model = [
                SimplifiedLIP(ngf * cur_ratio),
                nn.Conv2d(ngf * cur_ratio, ngf * next_ratio, kw, stride=1, padding=pw),
                norm_layer(ngf * next_ratio),  # expect: TCK609
            ]
            cur_ratio = next_ratio
            if i < n_2xdown - 1:
                model += [nn.ReLU(inplace=True)]
            blocks.append(nn.Sequential(*model))
        self.encoders = nn.ModuleList(blocks)

    def forward(self, x):
        feats = [self.head(x)]
        for net in self.encoders:
            feats = [net(feats[0])] + feats
        return feats


class RenovationGenerator(nn.Module):
    def __init__(self, in_nc=3, ngf=32, n_2xdown=3):
        super().__init__()
        self.encoder = ContentAdaptiveSuppresor(in_nc, ngf, n_2xdown)
        ch = ngf * min(2 ** n_2xdown, 16)
        ups = []
        for _ in range(n_2xdown):
            ups += [nn.Upsample(scale_factor=2), nn.Conv2d(ch, ch // 2, 3, padding=1), nn.LeakyReLU(0.2)]
            ch //= 2
        self.decoder = nn.Sequential(*ups)
        self.to_rgb = nn.Conv2d(ch, 3, 3, padding=1)

    def forward(self, x):
        feats = self.encoder(x)
        return torch.tanh(self.to_rgb(self.decoder(feats[0])))
