import torch
import torch.nn.functional as F
from torch import nn
from torch.distributions import Normal as NormalTorch

from utils import get_dict_values, tolist


class Normal(nn.Module):
    """Conditional diagonal Gaussian p(var | cond_var) parameterised by an MLP."""

    def __init__(self, var, cond_var, in_dim, z_dim, hidden=256):
        super().__init__()
        self.var = var
        self.cond_var = cond_var
        self.fc1 = nn.Linear(in_dim, hidden)
        self.fc_loc = nn.Linear(hidden, z_dim)
        self.fc_scale = nn.Linear(hidden, z_dim)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        return self.fc_loc(h), F.softplus(self.fc_scale(h)) + 1e-5


class NormalPoE(nn.Module):
    """p(z|x,y) proportional to p(z) p(z|x) p(z|y)."""

    def __init__(self, prior_loc, prior_scale, dists=[]):
        super().__init__()
        self.register_buffer("prior_loc", prior_loc)
        self.register_buffer("prior_scale", prior_scale)
        self.dists = tolist(dists)  # expect: TCK601
        self.cond_var = sum((d.cond_var for d in self.dists), [])

    def get_params(self, inputs):
        locs = [self.prior_loc.expand(next(iter(inputs.values())).shape[0], -1)]
        scales = [self.prior_scale.expand_as(locs[0])]
        for d in self.dists:
            xs = get_dict_values(inputs, d.cond_var)
            if xs:
                loc, scale = d(torch.cat(xs, dim=-1))
                locs.append(loc)
                scales.append(scale)
        precision = torch.stack([1.0 / s ** 2 for s in scales]).sum(0)
        loc = torch.stack([l / s ** 2 for l, s in zip(locs, scales)]).sum(0) / precision
        return loc, precision.rsqrt()

    def forward(self, inputs):
        loc, scale = self.get_params(inputs)
        return NormalTorch(loc, scale)
