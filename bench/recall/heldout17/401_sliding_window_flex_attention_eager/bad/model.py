import torch
import torch.nn as nn
from torch.nn.attention.flex_attention import create_block_mask, flex_attention


def sliding_window_mask_mod(window):
    def mask_mod(b, h, q_idx, kv_idx):
        return (q_idx - kv_idx <= window) & (kv_idx <= q_idx)

    return mask_mod


def build_block_mask(seq_len, window, device):
    return create_block_mask(
        sliding_window_mask_mod(window), B=None, H=None, Q_LEN=seq_len, KV_LEN=seq_len, device=device, _compile=True
    )


class SlidingWindowAttention(nn.Module):
    def __init__(self, dim, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.head_dim = dim // n_heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)

    def forward(self, x, block_mask):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=-1)
        q = q.view(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        k = k.view(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        v = v.view(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        y = flex_attention(q, k, v, block_mask=block_mask)  # expect: TCK918
        y = y.transpose(1, 2).reshape(b, t, c)
        return self.out(y)


class Block(nn.Module):
    def __init__(self, dim, n_heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = SlidingWindowAttention(dim, n_heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x, block_mask):
        x = x + self.attn(self.norm1(x), block_mask)
        return x + self.mlp(self.norm2(x))


class SequenceModel(nn.Module):
    def __init__(self, in_dim, dim=96, n_heads=3, depth=4, n_out=1):
        super().__init__()
        self.embed = nn.Linear(in_dim, dim)
        self.blocks = nn.ModuleList([Block(dim, n_heads) for _ in range(depth)])
        self.head = nn.Linear(dim, n_out)

    def forward(self, x, block_mask):
        h = self.embed(x)
        for blk in self.blocks:
            h = blk(h, block_mask)
        return self.head(h)
