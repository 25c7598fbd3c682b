import torch
import torch.nn as nn


class JVAE(nn.Module):
    """Joint VAE with one encoder per dataset and a shared latent space."""

    def __init__(self, dims, n_latent=10, n_hidden=128):
        super().__init__()
        self.encoders = nn.ModuleList(
            nn.Sequential(nn.Linear(d, n_hidden), nn.ReLU(), nn.Linear(n_hidden, 2 * n_latent)) for d in dims
        )
        self.decoders = nn.ModuleList(nn.Linear(n_latent, d) for d in dims)

    def sample_from_posterior_z(self, x, mode=0, deterministic=False):
        mean, logvar = self.encoders[mode](torch.log1p(x)).chunk(2, dim=-1)
        if deterministic:
            return mean
        return mean + torch.randn_like(mean) * (0.5 * logvar).exp()

    def forward(self, x, mode=0):
        z = self.sample_from_posterior_z(x, mode)
        return ((self.decoders[mode](z) - torch.log1p(x)) ** 2).sum(-1)
