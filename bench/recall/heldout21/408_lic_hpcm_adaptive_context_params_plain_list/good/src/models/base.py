import torch
import torch.nn as nn


class GaussianConditional(nn.Module):
    """Likelihood of quantised values under N(mean, scale), on unit-width bins."""

    def forward(self, x, scales, means=None):
        if means is not None:
            x = x - means
        scales = scales.clamp_min(0.11)
        upper = 0.5 * (1 + torch.erf((x + 0.5) / (scales * 2 ** 0.5)))
        lower = 0.5 * (1 + torch.erf((x - 0.5) / (scales * 2 ** 0.5)))
        return (upper - lower).clamp_min(1e-9)


class BB(nn.Module):
    """Common parts of the learned image codecs: hyperprior statistics and the entropy model."""

    def __init__(self, N):
        super().__init__()
        self.N = int(N)
        self.means_hyper = nn.Parameter(torch.zeros(1, N, 1, 1))
        self.scales_hyper = nn.Parameter(torch.ones(1, N, 1, 1))
        self.entropy_estimation = GaussianConditional()

    @staticmethod
    def ste_round(x):
        return torch.round(x) - x.detach() + x

    @staticmethod
    def add_noise(x):
        return x + torch.empty_like(x).uniform_(-0.5, 0.5)

    @staticmethod
    def checkerboard(B, C, H, W, dtype, device):
        m = torch.zeros(1, 1, H, W, dtype=dtype, device=device)
        m[..., 0::2, 0::2] = 1
        m[..., 1::2, 1::2] = 1
        return m.expand(B, C, H, W), (1 - m).expand(B, C, H, W)
