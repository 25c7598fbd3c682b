import torch


class ElasticNetRegression:
    """Elastic-net regression solved with proximal gradient steps."""

    def __init__(self, lam=0.1, mu=0.5, iters=200):
        self.lam = lam
        self.mu = mu
        self.iters = iters

    def lipschitz(self, A):
        return torch.linalg.svdvals(A).max() ** 2 + self.mu / 2

    def solve(self, A, b):
        L = self.lipschitz(A)
        x = torch.zeros(A.shape[1], dtype=A.dtype)
        for _ in range(self.iters):
            grad = A.t() @ (A @ x - b) + self.mu * x
            z = x - grad / L
            x = torch.sign(z) * torch.clamp(z.abs() - self.lam / L, min=0.0)
        return x
