import contextlib
from functools import lru_cache

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.attention import SDPBackend, sdpa_kernel


@lru_cache(maxsize=1)
def _needs_math_sdpa() -> bool:
    # the mem-efficient kernels are unreliable on sm121 (DGX Spark); pin SDPA to the math backend there
    return torch.cuda.is_available() and torch.cuda.get_device_capability() == (12, 1)


def _sdpa_context():
    if _needs_math_sdpa():
        return sdpa_kernel([SDPBackend.MATH])
    return contextlib.nullcontext()


class Attention(nn.Module):
    def __init__(self, dim, heads=8):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, context=None):
        b, n, d = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        with _sdpa_context():
            out = F.scaled_dot_product_attention(q, k, v)
        return self.proj(out.transpose(1, 2).reshape(b, n, d))


class BasicTransformerBlock(nn.Module):
    def __init__(self, dim, heads=8):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, dim * 4), nn.GELU(), nn.Linear(dim * 4, dim))
        self.ada = nn.Linear(dim, dim * 2)

    def forward(self, x, temb):
        scale, shift = self.ada(temb).unsqueeze(1).chunk(2, dim=-1)
        x = x + self.attn(self.norm1(x) * (1 + scale) + shift)
        return x + self.ff(self.norm2(x))


class DiT(nn.Module):
    def __init__(self, action_dim=32, dim=512, depth=8):
        super().__init__()
        self.in_proj = nn.Linear(action_dim, dim)
        self.t_embed = nn.Sequential(nn.Linear(1, dim), nn.SiLU(), nn.Linear(dim, dim))
        self.blocks = nn.ModuleList(BasicTransformerBlock(dim) for _ in range(depth))
        self.out_proj = nn.Linear(dim, action_dim)

    def forward(self, actions, t):
        temb = self.t_embed(t[:, None])
        x = self.in_proj(actions)
        for block in self.blocks:
            x = block(x, temb)
        return self.out_proj(x)
