import torch
from torch import Tensor


def lognorm_to_norm(mu: Tensor, Cov: Tensor) -> tuple[Tensor, Tensor]:
    """Mean and covariance of the Normal N(mu_n, Cov_n) whose exponential has the given
    log-Normal mean ``mu`` (batch x n) and covariance ``Cov`` (batch x n x n)."""
    Cov_n = torch.log1p(Cov / (mu.unsqueeze(-1) * mu.unsqueeze(-2)))
    mu_n = torch.log(mu) - 0.5 * torch.diagonal(Cov_n, dim1=-1, dim2=-2)
    return mu_n, Cov_n


def norm_to_lognorm_mean(mu: Tensor, var: Tensor) -> Tensor:
    return torch.exp(mu + 0.5 * var)
