import torch
from torch import nn


class ConvEncoder(nn.Module):
    def __init__(self, rep_size):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(3, 32, 4, 2, 1), nn.ReLU(),
            nn.Conv2d(32, 64, 4, 2, 1), nn.ReLU(),
            nn.Flatten(),
        )
        self.mu = nn.Linear(64 * 16 * 16, rep_size)
        self.logvar = nn.Linear(64 * 16 * 16, rep_size)

    def forward(self, x):
        h = self.conv(x)
        return self.mu(h), self.logvar(h)


class ConvDecoder(nn.Module):
    def __init__(self, rep_size):
        super().__init__()
        self.fc = nn.Linear(rep_size, 64 * 16 * 16)
        self.deconv = nn.Sequential(
            nn.ConvTranspose2d(64, 32, 4, 2, 1), nn.ReLU(),
            nn.ConvTranspose2d(32, 3, 4, 2, 1), nn.Sigmoid(),
        )

    def forward(self, z):
        return self.deconv(self.fc(z).view(-1, 64, 16, 16))


class GeneralVae(nn.Module):
    def __init__(self, rep_size=500):
        super().__init__()
        self.encoder = ConvEncoder(rep_size)
        self.decoder = ConvDecoder(rep_size)

    def forward(self, x):
        mu, logvar = self.encoder(x)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.decoder(z), mu, logvar


def vae_loss(recon, x, mu, logvar):
    bce = nn.functional.binary_cross_entropy(recon.float(), x.float(), reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return (bce + kld) / x.size(0)
