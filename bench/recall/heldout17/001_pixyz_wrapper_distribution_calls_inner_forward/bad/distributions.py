import torch
import torch.nn as nn


class Distribution(nn.Module):
    """A conditional distribution p(var | cond_var) whose parameters a network computes."""

    def __init__(self, var, cond_var=()):
        super().__init__()
        self.var = list(var)
        self.cond_var = list(cond_var)

    def get_params(self, **inputs):
        # forward() of a distribution returns the parameters of the distribution
        return self.forward(**inputs)

    def sample(self, **inputs):
        params = self.get_params(**inputs)
        eps = torch.randn_like(params["loc"])
        return {self.var[0]: params["loc"] + params["scale"] * eps}

    def log_prob(self, x, **inputs):
        params = self.get_params(**inputs)
        dist = torch.distributions.Normal(params["loc"], params["scale"])
        return dist.log_prob(x).sum(-1)


class NormalEncoder(Distribution):
    def __init__(self, in_dim, z_dim, hidden=256):
        super().__init__(var=["z"], cond_var=["x"])
        self.net = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU())
        self.loc = nn.Linear(hidden, z_dim)
        self.log_scale = nn.Linear(hidden, z_dim)

    def forward(self, x):
        h = self.net(x)
        return {"loc": self.loc(h), "scale": self.log_scale(h).exp()}


class NormalDecoder(Distribution):
    def __init__(self, z_dim, out_dim, hidden=256):
        super().__init__(var=["x"], cond_var=["z"])
        self.net = nn.Sequential(nn.Linear(z_dim, hidden), nn.ReLU(), nn.Linear(hidden, out_dim))

    def forward(self, z):
        return {"loc": self.net(z), "scale": torch.ones(1, device=z.device)}


class ReplaceVarDistribution(Distribution):
    """Wraps a distribution and renames its variables (e.g. x -> x_hat)."""

    def __init__(self, p, replace_dict):
        var = [replace_dict.get(v, v) for v in p.var]
        cond_var = [replace_dict.get(v, v) for v in p.cond_var]
        super().__init__(var=var, cond_var=cond_var)
        self.p = p
        self.replace_dict = replace_dict

    def forward(self, *args, **kwargs):
        return self.p.forward(*args, **kwargs)  # expect: TCK105


class MarginalizeVarDistribution(Distribution):
    """Wraps a joint distribution and drops some of its variables."""

    def __init__(self, p, marginalize_list):
        var = [v for v in p.var if v not in marginalize_list]
        super().__init__(var=var, cond_var=p.cond_var)
        self.p = p
        self.marginalize_list = marginalize_list

    def forward(self, *args, **kwargs):
        return self.p.forward(*args, **kwargs)  # expect: TCK105
