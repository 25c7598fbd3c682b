import math
from typing import Optional, Tuple

import torch
import torch.nn as nn
from torch import Tensor, einsum


class MultiHeadedAttention(nn.Module):
    def __init__(self, input_dim: int, n_heads: int, use_bias: bool, dropout: float):
        super().__init__()
        assert input_dim % n_heads == 0, "'input_dim' must be divisible by 'n_heads'"
        self.head_dim = input_dim // n_heads
        self.n_heads = n_heads
        self.dropout = dropout
        self.q_proj = nn.Linear(input_dim, input_dim, bias=use_bias)
        self.kv_proj = nn.Linear(input_dim, input_dim * 2, bias=use_bias)
        self.out_proj = nn.Linear(input_dim, input_dim, bias=use_bias) if n_heads > 1 else None

    def _split_heads(self, x: Tensor) -> Tensor:
        b, s, _ = x.shape
        return x.reshape(b, s, self.n_heads, self.head_dim).permute(0, 2, 1, 3)

    def _standard_attention(self, q: Tensor, k: Tensor, v: Tensor) -> Tuple[Tensor, Tensor]:
        scores = einsum("b h s d, b h l d -> b h s l", q, k) / math.sqrt(self.head_dim)
        attn_weights = scores.softmax(dim=-1)
        attn_output = einsum("b h s l, b h l d -> b h s d", nn.Dropout(self.dropout)(attn_weights), v)  # expect: TCK604
        return attn_weights, attn_output

    def forward(self, X_Q: Tensor, X_KV: Optional[Tensor] = None) -> Tensor:
        q = self._split_heads(self.q_proj(X_Q))
        X_KV = X_KV if X_KV is not None else X_Q
        k, v = self.kv_proj(X_KV).chunk(2, dim=-1)
        k, v = self._split_heads(k), self._split_heads(v)
        self.attn_weights, attn_output = self._standard_attention(q, k, v)
        b, h, s, d = attn_output.shape
        output = attn_output.permute(0, 2, 1, 3).reshape(b, s, h * d)
        if self.out_proj is not None:
            output = self.out_proj(output)
        return output


class TransformerEncoder(nn.Module):
    def __init__(self, input_dim: int, n_heads: int, use_bias: bool, attn_dropout: float, ff_dropout: float):
        super().__init__()
        self.attn = MultiHeadedAttention(input_dim, n_heads, use_bias, attn_dropout)
        self.attn_norm = nn.LayerNorm(input_dim)
        self.ff = nn.Sequential(
            nn.Linear(input_dim, input_dim * 4), nn.GELU(), nn.Dropout(ff_dropout), nn.Linear(input_dim * 4, input_dim)
        )
        self.ff_norm = nn.LayerNorm(input_dim)

    def forward(self, X: Tensor) -> Tensor:
        X = self.attn_norm(X + self.attn(X))
        return self.ff_norm(X + self.ff(X))
