from typing import Optional, Tuple

import torch
import torch.nn as nn


def _update_out_and_lse(out: torch.Tensor, lse: torch.Tensor, block_out: torch.Tensor,
                        block_lse: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    block_out = block_out.to(torch.float32)
    block_lse = block_lse.transpose(-2, -1).unsqueeze(dim=-1)

    new_lse = lse + torch.log1p(torch.exp(block_lse - lse))

    out = torch.exp(lse - new_lse) * out + torch.exp(block_lse - new_lse) * block_out
    return out, new_lse


def update_out_and_lse(out: Optional[torch.Tensor], lse: Optional[torch.Tensor], block_out: torch.Tensor,
                       block_lse: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    if out is None:
        out = block_out.to(torch.float32)
        lse = block_lse.transpose(-2, -1).unsqueeze(dim=-1)
        return out, lse
    return _update_out_and_lse(out, lse, block_out, block_lse)


def block_attention(q, k, v, scale):
    # q, k, v: (batch, seq, heads, dim)
    scores = torch.einsum("bqhd,bkhd->bhqk", q, k) * scale
    lse = torch.logsumexp(scores, dim=-1)                      # (batch, heads, q)
    out = torch.einsum("bhqk,bkhd->bqhd", torch.softmax(scores, dim=-1), v)
    return out, lse


class ChunkedSelfAttention(nn.Module):
    """Attention computed over key/value chunks and merged with running log-sum-exps."""

    def __init__(self, hidden, heads, chunk_size=128):
        super().__init__()
        self.heads = heads
        self.head_dim = hidden // heads
        self.chunk_size = chunk_size
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.proj = nn.Linear(hidden, hidden)

    def forward(self, x):
        b, s, _ = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, self.head_dim).unbind(dim=2)
        out, lse = None, None
        for start in range(0, s, self.chunk_size):
            block_out, block_lse = block_attention(q, k[:, start:start + self.chunk_size],
                                                   v[:, start:start + self.chunk_size], self.head_dim ** -0.5)
            out, lse = update_out_and_lse(out, lse, block_out, block_lse)
        return self.proj(out.to(x.dtype).reshape(b, s, -1))
