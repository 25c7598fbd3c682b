import numpy as np
import torch
import torch.nn as nn


class ValueNorm(nn.Module):
    """Running normalisation of value targets over the first `norm_axes` dimensions."""

    def __init__(self, input_shape, norm_axes=1, beta=0.99999, epsilon=1e-5):
        super().__init__()
        self.norm_axes = norm_axes
        self.epsilon = epsilon
        self.beta = beta

        self.running_mean = nn.Parameter(torch.zeros(input_shape), requires_grad=False)
        self.running_mean_sq = nn.Parameter(torch.zeros(input_shape), requires_grad=False)
        self.debiasing_term = nn.Parameter(torch.tensor(0.0), requires_grad=False)
        self.reset_parameters()

    def reset_parameters(self):
        self.running_mean.zero_()
        self.running_mean_sq.zero_()
        self.debiasing_term.zero_()

    def running_mean_var(self):
        mean = self.running_mean / self.debiasing_term.clamp(min=self.epsilon)
        mean_sq = self.running_mean_sq / self.debiasing_term.clamp(min=self.epsilon)
        var = (mean_sq - mean ** 2).clamp(min=1e-2)
        return mean, var

    def _as_tensor(self, x):
        if isinstance(x, np.ndarray):
            x = torch.from_numpy(x)
        return x.to(self.running_mean.device, torch.float32)

    @torch.no_grad()
    def update(self, values):
        values = self._as_tensor(values)
        dims = tuple(range(self.norm_axes))
        self.running_mean.mul_(self.beta).add_(values.mean(dim=dims) * (1.0 - self.beta))
        self.running_mean_sq.mul_(self.beta).add_((values ** 2).mean(dim=dims) * (1.0 - self.beta))
        self.debiasing_term.mul_(self.beta).add_(1.0 - self.beta)

    def normalize(self, values):
        mean, var = self.running_mean_var()
        idx = (None,) * self.norm_axes
        return (self._as_tensor(values) - mean[idx]) / torch.sqrt(var)[idx]

    def denormalize(self, values):
        mean, var = self.running_mean_var()
        idx = (None,) * self.norm_axes
        return (self._as_tensor(values) * torch.sqrt(var)[idx] + mean[idx]).cpu().numpy()
