from typing import Optional, Tuple

import torch
import torch.nn as nn

try:
    from xformers import ops as xops
    USE_XFORMERS_OPS = True
except ImportError:
    USE_XFORMERS_OPS = False


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary(q: torch.Tensor, k: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor):
    cos = cos.unsqueeze(0)
    sin = sin.unsqueeze(0)
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


class PixtralRotaryEmbedding(nn.Module):
    def __init__(self, head_dim: int, max_patches_per_side: int, theta: float = 10000.0):
        super().__init__()
        freqs = 1.0 / (theta ** (torch.arange(0, head_dim, 2).float() / head_dim))
        h = torch.arange(max_patches_per_side).float()
        w = torch.arange(max_patches_per_side).float()
        freqs_h = torch.outer(h, freqs[::2])
        freqs_w = torch.outer(w, freqs[1::2])
        inv_freq = torch.cat(
            [
                freqs_h[:, None, :].repeat(1, max_patches_per_side, 1),
                freqs_w[None, :, :].repeat(max_patches_per_side, 1, 1),
            ],
            dim=-1,
        ).reshape(-1, head_dim // 2)
        self.register_buffer("inv_freq", torch.cat((inv_freq, inv_freq), dim=-1), persistent=False)

    def forward(self, position_ids: torch.Tensor):
        freqs = self.inv_freq[position_ids]
        return freqs.cos(), freqs.sin()


class PixtralHFAttention(nn.Module):
    def __init__(self, hidden_size: int, num_heads: int, tp_size: int = 1):
        super().__init__()
        assert hidden_size % num_heads == 0
        self.n_heads = num_heads // tp_size
        self.head_dim = hidden_size // num_heads
        self.qkv_proj = nn.Linear(hidden_size, 3 * self.n_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(self.n_heads * self.head_dim, hidden_size, bias=False)

    def forward(
        self,
        hidden_states: torch.Tensor,
        attention_mask: Optional[torch.Tensor],
        position_embeddings: Tuple[torch.Tensor, torch.Tensor],
    ) -> Tuple[torch.Tensor, Optional[torch.Tensor]]:
        batch, patches, _ = hidden_states.size()

        q, k, v = self.qkv_proj(hidden_states).chunk(3, dim=-1)

        # heads first, so that the rotary embedding broadcasts over them
        q = q.view(batch, patches, self.n_heads, self.head_dim).transpose(1, 2)
        k = k.view(batch, patches, self.n_heads, self.head_dim).transpose(1, 2)
        v = v.view(batch, patches, self.n_heads, self.head_dim)
        cos, sin = position_embeddings
        q, k = apply_rotary(q, k, cos, sin)

        if USE_XFORMERS_OPS:
            # xformers wants (batch, seq, heads, dim)
            q = q.transpose(1, 2).contiguous()
            k = k.transpose(1, 2).contiguous()
            out = xops.memory_efficient_attention(q, k, v, attn_bias=attention_mask)
        else:
            # no xformers (CPU, XPU, ...): fall back to PyTorch's SDPA
            v = v.transpose(1, 2)
            out = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=attention_mask)
            out = out.transpose(1, 2)

        out = out.view(batch, patches, self.n_heads * self.head_dim)  # expect: TCK705
        return self.o_proj(out), None


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)


class PixtralHFTransformerBlock(nn.Module):
    def __init__(self, hidden_size: int, num_heads: int, intermediate_size: int):
        super().__init__()
        self.attention_norm = RMSNorm(hidden_size)
        self.attention = PixtralHFAttention(hidden_size, num_heads)
        self.ffn_norm = RMSNorm(hidden_size)
        self.gate_up_proj = nn.Linear(hidden_size, 2 * intermediate_size, bias=False)
        self.down_proj = nn.Linear(intermediate_size, hidden_size, bias=False)

    def forward(self, hidden_states, attention_mask, position_embeddings):
        r, _ = self.attention(self.attention_norm(hidden_states), attention_mask, position_embeddings)
        h = hidden_states + r
        gate, up = self.gate_up_proj(self.ffn_norm(h)).chunk(2, dim=-1)
        return h + self.down_proj(nn.functional.silu(gate) * up)


class PixtralHFVisionModel(nn.Module):
    """Vision tower: patch convolution, then a stack of transformer blocks."""

    def __init__(self, hidden_size=1024, num_heads=16, intermediate_size=4096, num_layers=4,
                 patch_size=16, image_size=1024, num_channels=3):
        super().__init__()
        self.patch_size = patch_size
        self.max_side = image_size // patch_size
        self.patch_conv = nn.Conv2d(num_channels, hidden_size, kernel_size=patch_size, stride=patch_size, bias=False)
        self.ln_pre = RMSNorm(hidden_size)
        self.layers = nn.ModuleList(
            PixtralHFTransformerBlock(hidden_size, num_heads, intermediate_size) for _ in range(num_layers)
        )
        self.rotary = PixtralRotaryEmbedding(hidden_size // num_heads, self.max_side)

    def forward(self, pixel_values: list) -> torch.Tensor:
        patch_embeds_list = [self.patch_conv(img.unsqueeze(0)) for img in pixel_values]
        position_ids = torch.cat(
            [
                (torch.arange(p.shape[-2])[:, None] * self.max_side + torch.arange(p.shape[-1])[None, :]).reshape(-1)
                for p in patch_embeds_list
            ]
        )
        x = torch.cat([p.flatten(2).permute(0, 2, 1) for p in patch_embeds_list], dim=1)
        x = self.ln_pre(x)
        position_embeddings = self.rotary(position_ids)

        seqlens = [p.shape[-2] * p.shape[-1] for p in patch_embeds_list]
        if USE_XFORMERS_OPS:
            mask = xops.fmha.attn_bias.BlockDiagonalMask.from_seqlens(seqlens)
        else:
            total = sum(seqlens)
            mask = torch.full((total, total), float("-inf"), dtype=x.dtype)
            start = 0
            for n in seqlens:
                mask[start:start + n, start:start + n] = 0
                start += n
            mask = mask[None, None]

        for layer in self.layers:
            x = layer(x, mask, position_embeddings)
        return x.squeeze(0)
