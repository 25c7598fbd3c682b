import torch
import torch.nn as nn
import torch.nn.functional as F


def rotate(x, pos):
    half = x.shape[-1] // 2
    freq = 1.0 / 10000 ** (torch.arange(half, device=x.device, dtype=x.dtype) / half)
    angle = pos[:, None].to(x.dtype) * freq[None, :]
    sin, cos = angle.sin().repeat(1, 2), angle.cos().repeat(1, 2)
    x1, x2 = x[..., :half], x[..., half:]
    return x * cos + torch.cat([-x2, x1], dim=-1) * sin


class RoPEAttention(nn.Module):
    def __init__(self, dim, num_heads=8, qkv_bias=False, proj_drop=0.0, is_causal=False):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.proj = nn.Linear(dim, dim)
        self.proj_drop_prob = proj_drop
        self.proj_drop = nn.Dropout(proj_drop)
        self.is_causal = is_causal

    def forward(self, x, attn_mask=None):
        B, N, C = x.shape
        qkv = self.qkv(x).unflatten(-1, (3, self.num_heads, -1)).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        pos = torch.arange(N, device=x.device)
        q, k = rotate(q, pos), rotate(k, pos)
        x = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, dropout_p=self.proj_drop_prob, is_causal=self.is_causal)  # expect: TCK604
        x = x.transpose(1, 2).reshape(B, N, C)
        return self.proj_drop(self.proj(x))


class Block(nn.Module):
    def __init__(self, dim, num_heads, drop=0.0):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = RoPEAttention(dim, num_heads=num_heads, proj_drop=drop)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim), nn.Dropout(drop))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class Encoder(nn.Module):
    def __init__(self, dim=192, depth=4, num_heads=6, drop=0.1):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim, num_heads, drop) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        for blk in self.blocks:
            x = blk(x)
        return self.norm(x)
