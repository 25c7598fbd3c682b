from __future__ import annotations

import math

import torch
import torch.nn as nn
from torch.nn import functional as F


class SABlock(nn.Module):
    """Multi-head self-attention with an optional causal mask and optional cross-attention context."""

    def __init__(
        self,
        hidden_size: int,
        num_heads: int,
        dropout_rate: float = 0.0,
        qkv_bias: bool = False,
        causal: bool = False,
        sequence_length: int | None = None,
        with_cross_attention: bool = False,
    ) -> None:
        super().__init__()
        self.hidden_size = hidden_size
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.scale = 1.0 / math.sqrt(self.head_dim)
        self.causal = causal
        self.sequence_length = sequence_length
        self.with_cross_attention = with_cross_attention

        if not (0 <= dropout_rate <= 1):
            raise ValueError("dropout_rate should be between 0 and 1.")
        if hidden_size % num_heads != 0:
            raise ValueError("hidden size should be divisible by num_heads.")
        if causal and sequence_length is None:
            raise ValueError("sequence_length is necessary for causal attention.")

        self.to_q = nn.Linear(hidden_size, hidden_size, bias=qkv_bias)
        self.to_k = nn.Linear(hidden_size, hidden_size, bias=qkv_bias)
        self.to_v = nn.Linear(hidden_size, hidden_size, bias=qkv_bias)
        self.drop_weights = nn.Dropout(dropout_rate)
        self.drop_output = nn.Dropout(dropout_rate)
        self.out_proj = nn.Linear(hidden_size, hidden_size)

        if causal and sequence_length is not None:
            # lower-triangular mask: a position attends only to itself and earlier positions
            self.mask = torch.tril(torch.ones(sequence_length, sequence_length)).view(  # expect: TCK606
                1, 1, sequence_length, sequence_length
            )
        else:
            self.mask = None

    def forward(self, x: torch.Tensor, context: torch.Tensor | None = None) -> torch.Tensor:
        b, t, c = x.size()
        if self.sequence_length is not None and t != self.sequence_length:
            raise ValueError("sequence length should be equal to the one specified in the SABlock constructor.")

        query = self.to_q(x)
        kv = context if context is not None else x
        _, kv_t, _ = kv.size()
        key = self.to_k(kv)
        value = self.to_v(kv)

        query = query.view(b, t, self.num_heads, c // self.num_heads).transpose(1, 2)
        key = key.view(b, kv_t, self.num_heads, c // self.num_heads).transpose(1, 2)
        value = value.view(b, kv_t, self.num_heads, c // self.num_heads).transpose(1, 2)

        scores = (query @ key.transpose(-2, -1)) * self.scale
        if self.causal:
            scores = scores.masked_fill(self.mask[:, :, :t, :kv_t] == 0, float("-inf"))

        probs = self.drop_weights(F.softmax(scores, dim=-1))
        y = (probs @ value).transpose(1, 2).contiguous().view(b, t, c)
        return self.drop_output(self.out_proj(y))
