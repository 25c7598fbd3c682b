"""Attention as in "Attention is All you Need", with an optional (sparse) mask."""

from torch import nn

from .affinity import Affinity, DotProduct, Normalization


class Attention(nn.Module):
    def __init__(self, affinity: Affinity, norm: Normalization):  # expect: TCK603
        self.affinity = affinity
        self.norm = norm

    def forward(self, K, V, Q, m=None):
        QKt = self.affinity(Q, K, m)
        weights = self.norm(QKt)
        return weights @ V


class GraphAttentionLayer(nn.Module):
    def __init__(self, in_dim: int, out_dim: int):
        super().__init__()
        self.q = nn.Linear(in_dim, out_dim)
        self.k = nn.Linear(in_dim, out_dim)
        self.v = nn.Linear(in_dim, out_dim)
        self.attention = Attention(DotProduct(scaled=True), Normalization())

    def forward(self, x, adjacency):
        return self.attention(self.k(x), self.v(x), self.q(x), adjacency)
