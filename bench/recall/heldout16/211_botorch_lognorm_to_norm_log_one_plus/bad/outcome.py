import torch
from torch import nn

from transform_utils import lognorm_to_norm, norm_to_lognorm_mean


class LogOutcome(nn.Module):
    """Outcome transform for strictly positive observations with known noise.

    Observations arrive as log-Normal means and covariances (replicate statistics); the model
    is fit in log space, so both are mapped to the Normal statistics of log(Y)."""

    def forward(self, Y_mean, Y_cov):
        return lognorm_to_norm(Y_mean, Y_cov)

    def untransform_mean(self, mu, var):
        return norm_to_lognorm_mean(mu, var)


class HeteroskedasticRegressor(nn.Module):
    def __init__(self, d, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.mean = nn.Linear(hidden, 1)

    def forward(self, X):
        return self.mean(self.net(X)).squeeze(-1)


def fit(X, Y_mean, Y_cov, epochs=200, lr=1e-2):
    transform = LogOutcome()
    mu_n, cov_n = transform(Y_mean, Y_cov)
    noise_var = torch.diagonal(cov_n, dim1=-1, dim2=-2).squeeze(0)
    target = mu_n.squeeze(0)
    model = HeteroskedasticRegressor(X.shape[-1])
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    for _ in range(epochs):
        optimizer.zero_grad()
        pred = model(X)
        loss = (0.5 * (pred - target) ** 2 / noise_var + 0.5 * torch.log(noise_var)).mean()
        loss.backward()
        optimizer.step()
    return model, transform


if __name__ == "__main__":
    torch.manual_seed(0)
    X = torch.rand(64, 3)
    Y_mean = torch.exp(X.sum(-1, keepdim=True).T)          # 1 x 64 log-normal means
    rel_noise = 1e-6                                         # tiny replicate noise: Cov / mu^2 ~ 1e-6
    Y_cov = torch.diag_embed(rel_noise * Y_mean ** 2)        # 1 x 64 x 64
    model, transform = fit(X, Y_mean, Y_cov)
    print(transform.untransform_mean(model(X), torch.full((64,), rel_noise))[:5])
