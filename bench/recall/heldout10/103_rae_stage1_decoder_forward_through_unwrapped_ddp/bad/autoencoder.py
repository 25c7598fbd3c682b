import torch
from torch import nn


class RepresentationAutoencoder(nn.Module):
    def __init__(self, in_ch=3, latent=64):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(in_ch, 32, 4, stride=2, padding=1), nn.GELU(),
            nn.Conv2d(32, latent, 4, stride=2, padding=1),
        )
        for p in self.encoder.parameters():
            p.requires_grad_(False)
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(latent, 32, 4, stride=2, padding=1), nn.GELU(),
            nn.ConvTranspose2d(32, in_ch, 4, stride=2, padding=1),
        )

    @torch.no_grad()
    def encode(self, x):
        return self.encoder(x)

    def decode(self, z):
        return self.decoder(z)

    def forward(self, x):
        return self.decode(self.encode(x))
