import numpy as np
import torch
import torch.nn as nn


class ParametrizedConditionalDistribution(nn.Module):
    """q(z | x), sampled and scored for a batch of x."""

    def __init__(self):
        super().__init__()

    def forward(self, x, num_samples=1):
        raise NotImplementedError

    def log_prob(self, z, x):
        raise NotImplementedError


class Dirac(ParametrizedConditionalDistribution):
    def __init__(self):
        super().__init__()

    def forward(self, x, num_samples=1):
        z = x.unsqueeze(1).repeat(1, num_samples, 1)
        return z, torch.zeros(z.shape[:2], device=x.device)

    def log_prob(self, z, x):
        return torch.zeros(z.shape[:2], device=z.device)


class NNDiagGaussian(ParametrizedConditionalDistribution):
    """Diagonal Gaussian whose mean and standard deviation come from a network of x."""

    def __init__(self, net):  # expect: TCK603
        self.net = net

    def _mean_std(self, x):
        out = self.net(x)
        half = out.shape[-1] // 2
        return out[..., :half], torch.exp(out[..., half:2 * half])

    def forward(self, x, num_samples=1):
        mean, std = self._mean_std(x)
        eps = torch.randn((x.shape[0], num_samples, mean.shape[-1]), device=x.device)
        z = mean.unsqueeze(1) + std.unsqueeze(1) * eps
        log_q = -0.5 * mean.shape[-1] * np.log(2 * np.pi) \
            - torch.sum(torch.log(std).unsqueeze(1) + 0.5 * eps ** 2, dim=-1)
        return z, log_q

    def log_prob(self, z, x):
        mean, std = self._mean_std(x)
        mean, std = mean.unsqueeze(1), std.unsqueeze(1)
        return -0.5 * z.shape[-1] * np.log(2 * np.pi) \
            - torch.sum(torch.log(std) + 0.5 * ((z - mean) / std) ** 2, dim=-1)


class Decoder(nn.Module):
    """p(x | z)."""

    def __init__(self):
        super().__init__()

    def forward(self, z):
        raise NotImplementedError

    def log_p(self, x, z):
        raise NotImplementedError


class NNDiagGaussianDecoder(Decoder):
    """Decoder with a diagonal Gaussian likelihood parametrised by a network of z."""

    def __init__(self, net):  # expect: TCK603
        self.net = net

    def forward(self, z):
        out = self.net(z)
        half = out.shape[-1] // 2
        return out[..., :half], torch.exp(out[..., half:2 * half])

    def log_p(self, x, z):
        mean, std = self.forward(z)
        x = x.unsqueeze(1)
        return -0.5 * x.shape[-1] * np.log(2 * np.pi) \
            - torch.sum(torch.log(std) + 0.5 * ((x - mean) / std) ** 2, dim=-1)


class StandardNormal:
    """Prior p(z) = N(0, I)."""

    def __init__(self, dim):
        self.dim = dim

    def log_prob(self, z):
        return -0.5 * self.dim * np.log(2 * np.pi) - 0.5 * torch.sum(z ** 2, dim=-1)
