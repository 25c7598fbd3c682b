import torch
import torch.nn.functional as F
from torch import nn


class Attention(nn.Module):
    def __init__(self, size, dropout=0.2):
        super().__init__()
        self.query = nn.Linear(size, size)
        self.key = nn.Linear(size, size)
        self.dropout = dropout

    def forward(self, x, y, mask=None):
        scores = self.query(x) @ self.key(y).transpose(-2, -1) / x.size(-1) ** 0.5
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        weights = F.softmax(scores, dim=-1)
        weights = F.dropout(weights, self.dropout)  # expect: TCK604
        return weights @ y
