from typing import Type

import torch
import torch.nn.functional as F
from torch import nn

from Embeddings import ClassToken, Embedding


def reglu(x):
    a, b = x.chunk(2, dim=-1)
    return a * F.relu(b)


class ReGLU(nn.Module):
    def forward(self, x):
        return reglu(x)


class Transformer(nn.Module):
    def __init__(self, num_features: int, num_blocks: int, dim_token: int, num_heads: int,
                 att_dropout: float, ffn_dropout: float, dim_hidden: int, dim_out: int = 1,
                 activation: Type[nn.Module] = ReGLU):
        super().__init__()
        self.embedding = Embedding(embedding_dim=dim_token, num_features=num_features)
        self.class_token = ClassToken(dim_token)
        self.layers = nn.ModuleList()
        for layer_idx in range(num_blocks):
            self.layers.append(
                TransformerBlock(
                    dim_token=dim_token,
                    num_heads=num_heads,
                    att_dropout=att_dropout,
                    ffn_dropout=ffn_dropout,
                    dim_hidden=dim_hidden,
                    activation=activation,
                    skip_attn_norm=(layer_idx == 0),
                    only_class_token=(layer_idx == num_blocks - 1),
                )
            )
        self.head = nn.Sequential(nn.LayerNorm(dim_token), nn.ReLU(), nn.Linear(dim_token, dim_out))

    def forward(self, x):
        mask = x["feature_ids"] != 0
        mask = torch.cat((mask.new_ones((mask.size(0), 1)), mask), dim=1)  # class token is always kept
        h = self.class_token(self.embedding(x))
        for layer in self.layers:
            h = layer(h, mask)
        return self.head(h).squeeze()


class TransformerBlock(nn.Module):
    def __init__(self, dim_token: int, num_heads: int, att_dropout: float, ffn_dropout: float,
                 dim_hidden: int, activation: Type[nn.Module] = ReGLU,
                 skip_attn_norm: bool = False, only_class_token: bool = False):
        super().__init__()
        self.attn_norm = nn.Identity() if skip_attn_norm else nn.LayerNorm(dim_token)
        self.only_class_token = only_class_token
        self.attn = MultiHeadAttention(dim_token=dim_token, nheads=num_heads, dropout_p=att_dropout)
        self.attn_dropout = nn.Dropout(att_dropout)
        self.ffn_norm = nn.LayerNorm(dim_token)
        self.ffn = FeedForwardBlock(dim_token, dim_hidden, dropout=ffn_dropout, activation=activation)
        self.ffn_dropout = nn.Dropout(ffn_dropout)

    def _select(self, t):
        return t[:, :1] if self.only_class_token else t

    def forward(self, x, mask):
        attn_out = self.attn(self.attn_norm(x), self._select, mask)
        x = self._select(x) + self.attn_dropout(attn_out)
        x = x + self.ffn_dropout(self.ffn(self.ffn_norm(x)))
        return x


class FeedForwardBlock(nn.Module):
    def __init__(self, dim_token: int, dim_hidden: int, dropout: float = 0.0,
                 activation: Type[nn.Module] = ReGLU):
        super().__init__()
        self.linear0 = nn.Linear(dim_token, dim_hidden * 2)
        self.activation = activation()
        self.dropout = nn.Dropout(dropout)
        self.linear1 = nn.Linear(dim_hidden, dim_token)

    def forward(self, x):
        return self.linear1(self.dropout(self.activation(self.linear0(x))))


class MultiHeadAttention(nn.Module):
    """Multi-head self-attention on padded sequences, computed with SDPA."""

    def __init__(self, dim_token: int, nheads: int, dropout_p: float = 0.0):
        super().__init__()
        assert dim_token % nheads == 0, "Embedding dim is not divisible by nheads"
        self.nheads = nheads
        self.dropout_p = dropout_p
        self.head_dim = dim_token // nheads
        self.in_proj = nn.Linear(dim_token, 3 * dim_token)
        self.out_proj = nn.Linear(dim_token, dim_token)

    def forward(self, x, query_selector, mask):
        query, key, value = self.in_proj(x).chunk(3, dim=-1)
        query = query_selector(query)
        # (N, L, E) -> (N, heads, L, head_dim)
        query = query.unflatten(-1, [self.nheads, self.head_dim]).transpose(1, 2)
        key = key.unflatten(-1, [self.nheads, self.head_dim]).transpose(1, 2)
        value = value.unflatten(-1, [self.nheads, self.head_dim]).transpose(1, 2)
        attn_mask = mask[:, None, None, :].contiguous()
        out = F.scaled_dot_product_attention(  # expect: TCK604
            query, key, value, dropout_p=self.dropout_p, is_causal=False, attn_mask=attn_mask
        )
        return self.out_proj(out.transpose(1, 2).flatten(-2))
