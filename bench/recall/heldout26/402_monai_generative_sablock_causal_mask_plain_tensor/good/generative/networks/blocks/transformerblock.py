from __future__ import annotations

import torch
import torch.nn as nn

from .selfattention import SABlock


class MLPBlock(nn.Module):
    def __init__(self, hidden_size: int, mlp_dim: int, dropout_rate: float = 0.0) -> None:
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(hidden_size, mlp_dim), nn.GELU(), nn.Dropout(dropout_rate),
            nn.Linear(mlp_dim, hidden_size), nn.Dropout(dropout_rate),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


class TransformerBlock(nn.Module):
    """Pre-norm block: causal self-attention, optional cross-attention, then an MLP."""

    def __init__(
        self,
        hidden_size: int,
        mlp_dim: int,
        num_heads: int,
        dropout_rate: float = 0.0,
        qkv_bias: bool = False,
        causal: bool = False,
        sequence_length: int | None = None,
        with_cross_attention: bool = False,
    ) -> None:
        super().__init__()
        self.with_cross_attention = with_cross_attention
        self.norm1 = nn.LayerNorm(hidden_size)
        self.attn = SABlock(hidden_size, num_heads, dropout_rate, qkv_bias, causal, sequence_length)
        if with_cross_attention:
            self.norm_cross = nn.LayerNorm(hidden_size)
            self.cross_attn = SABlock(hidden_size, num_heads, dropout_rate, qkv_bias, causal=False,
                                      with_cross_attention=True)
        self.norm2 = nn.LayerNorm(hidden_size)
        self.mlp = MLPBlock(hidden_size, mlp_dim, dropout_rate)

    def forward(self, x: torch.Tensor, context: torch.Tensor | None = None) -> torch.Tensor:
        x = x + self.attn(self.norm1(x))
        if self.with_cross_attention:
            x = x + self.cross_attn(self.norm_cross(x), context=context)
        return x + self.mlp(self.norm2(x))
