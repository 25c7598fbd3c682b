import torch
from torch import nn


class Embedding(nn.Module):
    """Sum of feature-id embeddings weighted by the feature values."""

    def __init__(self, embedding_dim: int, num_features: int):
        super().__init__()
        self.embedding = nn.Embedding(num_features + 1, embedding_dim, padding_idx=0)

    def forward(self, x):
        emb = self.embedding(x["feature_ids"])
        return emb * x["feature_values"].unsqueeze(-1)


class ClassToken(nn.Module):
    def __init__(self, dim_token: int):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(1, 1, dim_token))
        nn.init.kaiming_uniform_(self.weight, a=5 ** 0.5)

    def forward(self, x):
        return torch.cat([self.weight.expand(x.size(0), -1, -1), x], dim=1)
