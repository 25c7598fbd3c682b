import torch
import torch.nn as nn


class SoftDTW(nn.Module):
    """Soft-DTW discrepancy between batches of sequences (plain PyTorch stand-in for the CUDA kernel)."""

    def __init__(self, use_cuda=False, gamma=1.0, normalize=False):
        super().__init__()
        self.use_cuda = use_cuda
        self.gamma = gamma
        self.normalize = normalize

    def _softmin(self, a, b, c):
        stacked = torch.stack([a, b, c], dim=-1)
        return -self.gamma * torch.logsumexp(-stacked / self.gamma, dim=-1)

    def _sdtw(self, x, y):
        cost = torch.cdist(x, y).pow(2)
        n, m = cost.shape[1], cost.shape[2]
        inf = torch.full_like(cost[:, 0, 0], float("inf"))
        prev = [torch.zeros_like(inf)] + [inf] * m
        for i in range(1, n + 1):
            cur = [inf]
            for j in range(1, m + 1):
                cur.append(cost[:, i - 1, j - 1] + self._softmin(prev[j - 1], prev[j], cur[j - 1]))
            prev = cur
        return prev[m]

    def forward(self, x, y):
        if self.normalize:
            return self._sdtw(x, y) - 0.5 * (self._sdtw(x, x) + self._sdtw(y, y))
        return self._sdtw(x, y)
