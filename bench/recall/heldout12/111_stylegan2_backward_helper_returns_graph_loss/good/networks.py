import torch
from torch import nn


class Generator(nn.Module):
    def __init__(self, latent_size=64, out_size=256):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(latent_size, 256), nn.LeakyReLU(0.2), nn.Linear(256, out_size))

    def forward(self, latents):
        return self.net(latents)


class Discriminator(nn.Module):
    def __init__(self, in_size=256):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_size, 256), nn.LeakyReLU(0.2), nn.Linear(256, 1))

    def forward(self, x):
        return self.net(x)
