import torch
import torch.nn as nn
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

compiled_flex_attention = torch.compile(flex_attention)


def local_window_mask(window):
    def mask_mod(b, h, q_idx, kv_idx):
        return (q_idx - kv_idx).abs() <= window

    return mask_mod


class LocalAttention(nn.Module):
    def __init__(self, dim, num_heads, window, seq_len):
        super().__init__()
        self.num_heads = num_heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.block_mask = create_block_mask(local_window_mask(window), B=None, H=None, Q_LEN=seq_len, KV_LEN=seq_len)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.num_heads, d // self.num_heads).permute(2, 0, 3, 1, 4)
        out = compiled_flex_attention(q, k, v, block_mask=self.block_mask)
        return self.proj(out.transpose(1, 2).reshape(b, n, d))
