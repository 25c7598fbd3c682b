import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim


class Generator(nn.Module):
    def __init__(self, dim_z=128, n_classes=10, ch=64, G_lr=1e-4, B1=0.0, B2=0.999):
        super().__init__()
        self.dim_z = dim_z
        self.shared = nn.Embedding(n_classes, dim_z)
        self.linear = nn.Linear(dim_z, 4 * 4 * ch * 4)
        self.blocks = nn.Sequential(
            nn.Upsample(scale_factor=2), nn.Conv2d(ch * 4, ch * 2, 3, padding=1), nn.BatchNorm2d(ch * 2), nn.ReLU(),
            nn.Upsample(scale_factor=2), nn.Conv2d(ch * 2, ch, 3, padding=1), nn.BatchNorm2d(ch), nn.ReLU(),
            nn.Upsample(scale_factor=2), nn.Conv2d(ch, 3, 3, padding=1),
        )
        self.ch = ch
        self.optim = optim.Adam(self.parameters(), lr=G_lr, betas=(B1, B2), eps=1e-8)

    def forward(self, z, y_embed):
        h = self.linear(z + y_embed).view(z.size(0), self.ch * 4, 4, 4)
        return torch.tanh(self.blocks(h))


class Discriminator(nn.Module):
    def __init__(self, n_classes=10, ch=64, D_lr=4e-4, B1=0.0, B2=0.999):
        super().__init__()
        self.blocks = nn.Sequential(
            nn.Conv2d(3, ch, 3, stride=2, padding=1), nn.LeakyReLU(0.2),
            nn.Conv2d(ch, ch * 2, 3, stride=2, padding=1), nn.LeakyReLU(0.2),
            nn.Conv2d(ch * 2, ch * 4, 3, stride=2, padding=1), nn.LeakyReLU(0.2),
        )
        self.linear = nn.Linear(ch * 4, 1)
        self.embed = nn.Embedding(n_classes, ch * 4)
        self.optim = optim.Adam(self.parameters(), lr=D_lr, betas=(B1, B2), eps=1e-8)

    def forward(self, x, y):
        h = self.blocks(x).sum(dim=(2, 3))
        return self.linear(h) + (self.embed(y) * h).sum(1, keepdim=True)


class G_D(nn.Module):
    """Runs G and D together so the pair can be wrapped for data parallelism."""

    def __init__(self, G, D):
        super().__init__()
        self.G = G
        self.D = D

    def forward(self, z, gy, x=None, dy=None, train_G=False):
        with torch.set_grad_enabled(train_G):
            G_z = self.G(z, self.G.shared(gy))
        if x is None:
            return self.D(G_z, gy)
        D_input = torch.cat([G_z, x], 0)
        D_class = torch.cat([gy, dy], 0)
        D_out = self.D(D_input, D_class)
        return torch.split(D_out, [G_z.shape[0], x.shape[0]])


def discriminator_loss(dis_fake, dis_real):
    return torch.mean(F.relu(1.0 - dis_real)), torch.mean(F.relu(1.0 + dis_fake))


def generator_loss(dis_fake):
    return -torch.mean(dis_fake)
