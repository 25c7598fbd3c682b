import torch
import torch.nn as nn


def sinkhorn_distance(x, y, eps=0.1, n_iters=20):
    cost = torch.cdist(x, y) ** 2
    k = torch.exp(-cost / eps)
    u = torch.ones(x.size(0), device=x.device) / x.size(0)
    v = torch.ones(y.size(0), device=y.device) / y.size(0)
    a, b = u.clone(), v.clone()
    for _ in range(n_iters):
        a = u / (k @ b)
        b = v / (k.t() @ a)
    plan = a[:, None] * k * b[None, :]
    return (plan * cost).sum()


class PrototypeOTHead(nn.Module):
    def __init__(self, n_protos, n_points, dim, nce_coef=0.01):
        super().__init__()
        self.prototypes = nn.Parameter(torch.randn(n_protos, n_points, dim))
        self.nce_coef = nce_coef

    def forward(self, node_embs, positive_idx):
        all_nce_dists = []
        for proto in [self.prototypes[positive_idx]] + [p for i, p in enumerate(self.prototypes) if i != positive_idx]:
            all_nce_dists.append(-sinkhorn_distance(node_embs, proto))
        nce_reg = torch.nn.LogSoftmax(dim=0)(torch.stack(all_nce_dists))[0]
        distances = torch.stack([sinkhorn_distance(node_embs, p) for p in self.prototypes])
        return distances, -self.nce_coef * nce_reg
