import torch.nn as nn


class CompactSR(nn.Module):
    def __init__(self, scale=4, num_feat=64, num_conv=16):
        super().__init__()
        layers = [nn.Conv2d(3, num_feat, 3, 1, 1), nn.PReLU(num_feat)]
        for _ in range(num_conv):
            layers += [nn.Conv2d(num_feat, num_feat, 3, 1, 1), nn.PReLU(num_feat)]
        layers += [nn.Conv2d(num_feat, 3 * scale * scale, 3, 1, 1), nn.PixelShuffle(scale)]
        self.body = nn.Sequential(*layers)
        self.up = nn.Upsample(scale_factor=scale, mode="nearest")

    def forward(self, x):
        return self.body(x) + self.up(x)


class PatchDiscriminator(nn.Module):
    def __init__(self, num_feat=64):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, num_feat, 4, 2, 1), nn.LeakyReLU(0.2, True),
            nn.Conv2d(num_feat, num_feat * 2, 4, 2, 1), nn.LeakyReLU(0.2, True),
            nn.Conv2d(num_feat * 2, 1, 3, 1, 1),
        )

    def forward(self, x):
        return self.net(x)
