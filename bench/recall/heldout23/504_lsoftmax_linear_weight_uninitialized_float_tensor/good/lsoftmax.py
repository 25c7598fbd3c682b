import math

import torch
from scipy.special import binom
from torch import nn


class LSoftmaxLinear(nn.Module):
    """Large-margin softmax output layer (Liu et al., 2016)."""

    def __init__(self, input_features, output_features, margin, device):
        super().__init__()
        self.input_dim = input_features
        self.output_dim = output_features
        self.margin = margin
        self.beta = 100
        self.beta_min = 0
        self.scale = 0.99
        self.device = device

        self.weight = nn.Parameter(torch.empty(input_features, output_features))
        self.divisor = math.pi / self.margin
        # coefficients of the multiple-angle expansion of cos(m * theta)
        self.C_m_2n = torch.tensor(binom(margin, range(0, margin + 1, 2)), dtype=torch.float32, device=device)
        self.cos_powers = torch.arange(self.margin, -1, -2, dtype=torch.float32, device=device)
        self.sin2_powers = torch.arange(len(self.cos_powers), dtype=torch.float32, device=device)
        self.signs = torch.ones(margin // 2 + 1, device=device)
        self.signs[1::2] = -1
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.kaiming_normal_(self.weight.data.t())

    def calculate_cos_m_theta(self, cos_theta):
        sin2_theta = 1 - cos_theta ** 2
        cos_terms = cos_theta.unsqueeze(1) ** self.cos_powers.unsqueeze(0)
        sin2_terms = sin2_theta.unsqueeze(1) ** self.sin2_powers.unsqueeze(0)
        return (self.signs.unsqueeze(0) * self.C_m_2n.unsqueeze(0) * cos_terms * sin2_terms).sum(1)

    def find_k(self, cos):
        eps = 1e-7
        cos = torch.clamp(cos, -1 + eps, 1 - eps)
        return (cos.acos() / self.divisor).floor().detach()

    def forward(self, input, target=None):
        if self.training:
            assert target is not None
            x, w = input, self.weight
            beta = max(self.beta, self.beta_min)
            logit = x.mm(w)
            indexes = range(logit.size(0))
            logit_target = logit[indexes, target]
            w_target_norm = w[:, target].norm(p=2, dim=0)
            x_norm = x.norm(p=2, dim=1)
            cos_theta_target = logit_target / (w_target_norm * x_norm + 1e-10)
            cos_m_theta_target = self.calculate_cos_m_theta(cos_theta_target)
            k = self.find_k(cos_theta_target)
            updated = w_target_norm * x_norm * (((-1) ** k * cos_m_theta_target) - 2 * k)
            logit[indexes, target] = (updated + beta * logit[indexes, target]) / (1 + beta)
            self.beta *= self.scale
            return logit
        assert target is None
        return input.mm(self.weight)
