import math
from typing import List, Optional, Tuple, Union

import torch
import torch.nn as nn
from torch import Tensor
from torch.nn.parameter import Parameter


class OneHotEncoder(nn.Module):
    def __init__(self, cardinalities: List[int]) -> None:
        super().__init__()
        self.register_buffer("cardinalities", torch.tensor(cardinalities))

    def forward(self, x: Tensor) -> Tensor:
        encoded_columns = [
            nn.functional.one_hot(column, cardinality)
            for column, cardinality in zip(x.T, self.cardinalities.tolist())
        ]
        return torch.cat(encoded_columns, 1)


class CatEmbeddings(nn.Module):
    def __init__(
        self,
        spec: Union[List[int], List[Tuple[int, int]]],
        d_embedding: Optional[int] = None,
        stack: bool = False,
    ) -> None:
        if stack and d_embedding is None:
            raise ValueError("stack can be True only when d_embedding is not None")
        super().__init__()
        spec_ = spec if d_embedding is None else [(x, d_embedding) for x in spec]
        self.stack = stack
        self.embeddings = nn.ModuleList([nn.Embedding(n, d) for n, d in spec_])

    def forward(self, x: Tensor) -> Tensor:
        columns = [emb(x[:, i]) for i, emb in enumerate(self.embeddings)]
        return torch.stack(columns, dim=1) if self.stack else torch.cat(columns, dim=1)


class LinearEmbeddings(nn.Module):
    def __init__(self, n_features: int, d_embedding: int, bias: bool = True):
        super().__init__()
        self.weight = Parameter(torch.empty(n_features, d_embedding))
        self.bias = Parameter(torch.empty(n_features, d_embedding)) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        d_rqsrt = self.weight.shape[1] ** -0.5
        nn.init.uniform_(self.weight, -d_rqsrt, d_rqsrt)
        if self.bias is not None:
            nn.init.uniform_(self.bias, -d_rqsrt, d_rqsrt)

    def forward(self, x: Tensor) -> Tensor:
        x = self.weight[None] * x[..., None]
        if self.bias is not None:
            x = x + self.bias[None]
        return x


class PeriodicEmbeddings(nn.Module):
    def __init__(self, n_features: int, d_embedding: int, sigma: float) -> None:
        if d_embedding % 2:
            raise ValueError("d_embedding must be even")
        super().__init__()
        self.sigma = sigma
        self.coefficients = Parameter(torch.empty(n_features, d_embedding // 2))
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.normal_(self.coefficients, 0.0, self.sigma)

    def forward(self, x: Tensor) -> Tensor:
        x = 2 * math.pi * self.coefficients[None] * x[..., None]
        return torch.cat([torch.cos(x), torch.sin(x)], -1)
