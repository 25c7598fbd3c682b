import torch
import torch.nn as nn

from .auto_reg_nn import AutoRegressiveNN


class AffineAutoregressive(nn.Module):
    """Inverse autoregressive flow step y = mu(x) + sigma(x) * x."""

    def __init__(self, arn: AutoRegressiveNN, log_scale_min_clip=-5.0, log_scale_max_clip=3.0):
        super().__init__()
        self.arn = arn
        self.log_scale_min_clip = log_scale_min_clip
        self.log_scale_max_clip = log_scale_max_clip

    def forward(self, x):
        mean, log_scale = self.arn(x)
        log_scale = log_scale.clamp(self.log_scale_min_clip, self.log_scale_max_clip)
        y = mean + torch.exp(log_scale) * x
        return y, log_scale.sum(-1)

    def inverse(self, y):
        """Invert one variable at a time, in the network's autoregressive order."""
        x = torch.zeros_like(y)
        perm = self.arn.get_permutation()
        for idx in perm:
            mean, log_scale = self.arn(x)
            log_scale = log_scale.clamp(self.log_scale_min_clip, self.log_scale_max_clip)
            x[..., idx] = (y[..., idx] - mean[..., idx]) * torch.exp(-log_scale[..., idx])
        return x
