"""Affinity functions between attention queries and keys."""

from math import sqrt

import torch
from torch import nn


class Affinity(nn.Module):
    """Base class: forward(Q, K, m=None) returns the query-key affinity matrix."""


class DotProduct(Affinity):
    def __init__(self, scaled: bool = True):
        super().__init__()
        self.scaled = scaled

    def forward(self, Q, K, m=None):
        if m is None or not m.is_sparse:
            QKt = Q @ K.t()
            QKt = QKt if m is None else QKt * m
        else:
            q_idx, k_idx = m.coalesce().indices()
            values = (Q.index_select(0, q_idx) * K.index_select(0, k_idx)).sum(-1)
            QKt = torch.sparse_coo_tensor(m.coalesce().indices(), values, m.size())
        if self.scaled:
            QKt = QKt / sqrt(K.size(1))
        return QKt


class Normalization(nn.Module):
    """Row-wise softmax over the keys of each query."""

    def __init__(self, dim: int = -1):
        super().__init__()
        self.dim = dim

    def forward(self, QKt):
        if QKt.is_sparse:
            return torch.sparse.softmax(QKt, dim=self.dim)
        return torch.softmax(QKt, dim=self.dim)
