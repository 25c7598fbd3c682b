import math

import torch
import torch.nn as nn


def attention(q, k, v):
    scores = torch.matmul(q, k.transpose(2, 1)) / math.sqrt(q.shape[-1])
    return torch.matmul(torch.softmax(scores, dim=-1), v)


class AttentionBlock(nn.Module):
    def __init__(self, dim_val, dim_attn):
        super().__init__()
        self.value = nn.Linear(dim_val, dim_val, bias=False)
        self.key = nn.Linear(dim_val, dim_attn, bias=False)
        self.query = nn.Linear(dim_val, dim_attn, bias=False)

    def forward(self, x, kv=None):
        if kv is None:
            return attention(self.query(x), self.key(x), self.value(x))
        return attention(self.query(x), self.key(kv), self.value(kv))


class MultiHeadAttentionBlock(nn.Module):
    def __init__(self, dim_val, dim_attn, n_heads):
        super().__init__()
        self.heads = []
        for _ in range(n_heads):
            self.heads.append(AttentionBlock(dim_val, dim_attn))
        self.heads = nn.ModuleList(self.heads)
        self.fc = nn.Linear(n_heads * dim_val, dim_val, bias=False)

    def forward(self, x, kv=None):
        a = torch.stack([h(x, kv=kv) for h in self.heads], dim=-1)
        return self.fc(a.flatten(start_dim=2))


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000):
        super().__init__()
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):
        return x + self.pe[: x.size(1)]
