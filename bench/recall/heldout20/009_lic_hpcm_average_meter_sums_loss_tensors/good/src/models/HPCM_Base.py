import torch
import torch.nn as nn


class FactorizedPrior(nn.Module):
    """Learned per-channel density for the hyper-latent."""

    def __init__(self, channels):
        super().__init__()
        self.loc = nn.Parameter(torch.zeros(1, channels, 1, 1))
        self.log_scale = nn.Parameter(torch.zeros(1, channels, 1, 1))

    def forward(self, z):
        z_hat = z + (torch.rand_like(z) - 0.5) if self.training else torch.round(z)
        dist = torch.distributions.Normal(self.loc, self.log_scale.exp())
        likelihood = dist.cdf(z_hat + 0.5) - dist.cdf(z_hat - 0.5)
        return z_hat, likelihood.clamp_min(1e-9)


class HPCM(nn.Module):
    def __init__(self, N=64, M=96):
        super().__init__()
        self.g_a = nn.Sequential(nn.Conv2d(3, N, 5, 2, 2), nn.GELU(), nn.Conv2d(N, M, 5, 2, 2))
        self.g_s = nn.Sequential(nn.ConvTranspose2d(M, N, 5, 2, 2, 1), nn.GELU(), nn.ConvTranspose2d(N, 3, 5, 2, 2, 1))
        self.h_a = nn.Sequential(nn.Conv2d(M, N, 3, 2, 1), nn.GELU(), nn.Conv2d(N, N, 3, 2, 1))
        self.h_s = nn.Sequential(nn.ConvTranspose2d(N, N, 3, 2, 1, 1), nn.GELU(), nn.ConvTranspose2d(N, 2 * M, 3, 2, 1, 1))
        self.z_prior = FactorizedPrior(N)

    def forward(self, x):
        y = self.g_a(x)
        z = self.h_a(y)
        z_hat, z_likelihood = self.z_prior(z)
        mean, log_scale = self.h_s(z_hat).chunk(2, dim=1)
        y_hat = y + (torch.rand_like(y) - 0.5) if self.training else torch.round(y - mean) + mean
        dist = torch.distributions.Normal(mean, log_scale.exp().clamp_min(0.11))
        y_likelihood = (dist.cdf(y_hat + 0.5) - dist.cdf(y_hat - 0.5)).clamp_min(1e-9)
        x_hat = self.g_s(y_hat)
        return {"x_hat": x_hat, "likelihoods": {"y": y_likelihood, "z": z_likelihood}}
