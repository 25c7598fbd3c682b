import math

import torch
import torch.nn.functional as F
from torch import nn


def exists(val):
    return val is not None


def default(val, d):
    return val if exists(val) else d


def l2norm(t):
    return F.normalize(t, p=2, dim=-1)


class always():
    def __init__(self, val):
        self.val = val

    def __call__(self, *args, **kwargs):
        return self.val


class TokenEmbedding(nn.Module):
    def __init__(self, dim, num_tokens, l2norm_embed=False):
        super().__init__()
        self.l2norm_embed = l2norm_embed
        self.emb = nn.Embedding(num_tokens, dim)

    def forward(self, x):
        token_emb = self.emb(x.long())
        return l2norm(token_emb) if self.l2norm_embed else token_emb


class AbsolutePositionalEmbedding(nn.Module):
    def __init__(self, dim, max_seq_len, l2norm_embed=False):
        super().__init__()
        self.scale = dim ** -0.5 if not l2norm_embed else 1.0
        self.max_seq_len = max_seq_len
        self.l2norm_embed = l2norm_embed
        self.emb = nn.Embedding(max_seq_len, dim)

    def forward(self, x, pos=None):
        seq_len = x.shape[1]
        if pos is None:
            pos = torch.arange(seq_len, device=x.device)
        pos_emb = self.emb(pos) * self.scale
        return l2norm(pos_emb) if self.l2norm_embed else pos_emb


class ScaledSinusoidalEmbedding(nn.Module):
    def __init__(self, dim, theta=10000):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(1) * dim ** -0.5)
        half_dim = dim // 2
        freq_seq = torch.arange(half_dim).float() / half_dim
        self.register_buffer("inv_freq", theta ** -freq_seq, persistent=False)

    def forward(self, x, pos=None):
        seq_len = x.shape[1]
        if pos is None:
            pos = torch.arange(seq_len, device=x.device)
        emb = pos.float()[:, None] * self.inv_freq[None, :]
        return torch.cat((emb.sin(), emb.cos()), dim=-1) * self.scale


class LayerNorm(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.gamma = nn.Parameter(torch.ones(dim))
        self.register_buffer("beta", torch.zeros(dim))

    def forward(self, x):
        return F.layer_norm(x, x.shape[-1:], self.gamma, self.beta)


class AttentionLayers(nn.Module):
    def __init__(self, dim, depth, heads=8, causal=False, disable_abs_pos_emb=False):
        super().__init__()
        self.dim = dim
        self.causal = causal
        self.disable_abs_pos_emb = disable_abs_pos_emb
        self.layers = nn.ModuleList([
            nn.TransformerEncoderLayer(dim, heads, dim_feedforward=4 * dim, batch_first=True)
            for _ in range(depth)
        ])

    def forward(self, x, mask=None):
        attn_mask = None
        if self.causal:
            n = x.shape[1]
            attn_mask = torch.ones(n, n, dtype=torch.bool, device=x.device).triu(1)
        for layer in self.layers:
            x = layer(x, src_mask=attn_mask)
        return x


class Decoder(AttentionLayers):
    def __init__(self, **kwargs):
        super().__init__(causal=True, **kwargs)


class Encoder(AttentionLayers):
    def __init__(self, **kwargs):
        super().__init__(causal=False, **kwargs)
