import math

import torch
import torch.nn.functional as F
from torch import nn


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=512):
        super().__init__()
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x):
        return x + self.pe[:, : x.size(1)]


class EncoderLayer(nn.Module):
    def __init__(self, dim_val, n_heads=1):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim_val, n_heads, batch_first=True)
        self.fc1 = nn.Linear(dim_val, dim_val)
        self.fc2 = nn.Linear(dim_val, dim_val)
        self.norm1 = nn.LayerNorm(dim_val)
        self.norm2 = nn.LayerNorm(dim_val)

    def forward(self, x):
        a, _ = self.attn(x, x, x)
        x = self.norm1(x + a)
        return self.norm2(x + self.fc1(F.elu(self.fc2(x))))


class DecoderLayer(nn.Module):
    def __init__(self, dim_val, n_heads=1):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(dim_val, n_heads, batch_first=True)
        self.cross_attn = nn.MultiheadAttention(dim_val, n_heads, batch_first=True)
        self.fc1 = nn.Linear(dim_val, dim_val)
        self.fc2 = nn.Linear(dim_val, dim_val)
        self.norm1 = nn.LayerNorm(dim_val)
        self.norm2 = nn.LayerNorm(dim_val)
        self.norm3 = nn.LayerNorm(dim_val)

    def forward(self, x, enc):
        a, _ = self.self_attn(x, x, x)
        x = self.norm1(x + a)
        a, _ = self.cross_attn(x, enc, enc)
        x = self.norm2(x + a)
        return self.norm3(x + self.fc1(F.elu(self.fc2(x))))
