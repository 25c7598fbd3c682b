import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class ResBlk(nn.Module):
    def __init__(self, dim_in, dim_out, downsample=False):
        super().__init__()
        self.downsample = downsample
        self.conv1 = nn.Conv2d(dim_in, dim_in, 3, 1, 1)
        self.conv2 = nn.Conv2d(dim_in, dim_out, 3, 1, 1)
        self.norm1 = nn.InstanceNorm2d(dim_in, affine=True)
        self.norm2 = nn.InstanceNorm2d(dim_in, affine=True)
        self.conv1x1 = nn.Conv2d(dim_in, dim_out, 1, 1, 0, bias=False) if dim_in != dim_out else None

    def forward(self, x):
        s = self.conv1x1(x) if self.conv1x1 is not None else x
        if self.downsample:
            s = F.avg_pool2d(s, 2)
        h = self.conv1(F.leaky_relu(self.norm1(x), 0.2))
        if self.downsample:
            h = F.avg_pool2d(h, 2)
        h = self.conv2(F.leaky_relu(self.norm2(h), 0.2))
        return (s + h) / math.sqrt(2)


class HighPass(nn.Module):
    def __init__(self, w_hpf, device):
        super().__init__()
        self.register_buffer("filter", torch.tensor([[-1, -1, -1], [-1, 8.0, -1], [-1, -1, -1]]) / w_hpf)

    def forward(self, x):
        filter = self.filter.unsqueeze(0).unsqueeze(1).repeat(x.size(1), 1, 1, 1)
        return F.conv2d(x, filter, padding=1, groups=x.size(1))


class Generator(nn.Module):
    def __init__(self, img_size=256, dim_in=64, w_hpf=1):
        super().__init__()
        self.from_rgb = nn.Conv2d(3, dim_in, 3, 1, 1)
        self.encode = nn.Sequential(ResBlk(dim_in, 2 * dim_in, downsample=True), ResBlk(2 * dim_in, 2 * dim_in))
        self.decode = nn.Sequential(nn.Upsample(scale_factor=2), ResBlk(2 * dim_in, dim_in))
        self.to_rgb = nn.Sequential(nn.InstanceNorm2d(dim_in, affine=True), nn.LeakyReLU(0.2), nn.Conv2d(dim_in, 3, 1))
        self.w_hpf = w_hpf
        if w_hpf > 0:
            device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            self.hpf = HighPass(w_hpf, device)

    def forward(self, x, masks=None):
        x = self.from_rgb(x)
        skip = x
        x = self.decode(self.encode(x))
        if self.w_hpf > 0 and masks is not None:
            x = x + self.hpf(masks * skip)
        return self.to_rgb(x)


class Discriminator(nn.Module):
    def __init__(self, dim_in=64, num_domains=2):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(3, dim_in, 3, 1, 1), ResBlk(dim_in, 2 * dim_in, downsample=True), nn.LeakyReLU(0.2),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2 * dim_in, num_domains),
        )

    def forward(self, x, y):
        out = self.main(x)
        return out[torch.arange(y.size(0), device=y.device), y]


def build_model(w_hpf=1):
    generator = Generator(w_hpf=w_hpf)
    discriminator = Discriminator()
    if torch.cuda.device_count() > 1:
        generator = nn.DataParallel(generator)
        discriminator = nn.DataParallel(discriminator)
    return generator, discriminator
