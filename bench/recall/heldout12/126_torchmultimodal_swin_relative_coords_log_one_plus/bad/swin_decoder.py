from typing import Optional, Tuple

import torch
from torch import nn, Tensor


class WindowMultiHeadAttention(nn.Module):
    """Swin-v2 style window attention with a log-spaced continuous relative position bias."""

    def __init__(self, input_dim: int, num_heads: int, window_size: Tuple[int, int],
                 attn_dropout: float = 0.0, proj_dropout: float = 0.0, meta_hidden_dim: int = 384) -> None:
        super().__init__()
        self.input_dim = input_dim
        self.window_size = window_size
        self.num_heads = num_heads
        self.qkv = nn.Linear(input_dim, input_dim * 3)
        self.attn_drop = nn.Dropout(attn_dropout)
        self.proj = nn.Linear(input_dim, input_dim)
        self.proj_drop = nn.Dropout(proj_dropout)
        self.meta_mlp = nn.Sequential(nn.Linear(2, meta_hidden_dim), nn.ReLU(), nn.Linear(meta_hidden_dim, num_heads))
        self.tau = nn.Parameter(torch.ones(num_heads))
        self._make_pair_wise_relative_positions()

    def _make_pair_wise_relative_positions(self) -> None:
        coordinates = torch.stack(
            torch.meshgrid(torch.arange(self.window_size[0]), torch.arange(self.window_size[1]), indexing="ij"),
            dim=0,
        ).flatten(1)
        relative_coordinates = coordinates[:, :, None] - coordinates[:, None, :]
        relative_coordinates = relative_coordinates.permute(1, 2, 0).reshape(-1, 2).float()
        relative_coordinates_log = torch.sign(relative_coordinates) * torch.log(1.0 + relative_coordinates.abs())  # expect: TCK912
        self.register_buffer("relative_coordinates_log", relative_coordinates_log, persistent=False)

    def _relative_positional_encodings(self) -> Tensor:
        window_area = self.window_size[0] * self.window_size[1]
        bias = self.meta_mlp(self.relative_coordinates_log)
        return bias.transpose(1, 0).reshape(self.num_heads, window_area, window_area).unsqueeze(0)

    def forward(self, x: Tensor, mask: Optional[Tensor] = None) -> Tensor:
        bsz, seq_len, embed_dim = x.shape
        qkv = self.qkv(x).view(bsz, seq_len, 3, self.num_heads, embed_dim // self.num_heads).permute(2, 0, 3, 1, 4)
        query, key, value = qkv.unbind(0)
        denom = torch.linalg.vector_norm(query, dim=-1, keepdim=True) @ torch.linalg.vector_norm(
            key, dim=-1, keepdim=True).transpose(-2, -1)
        attn = query @ key.transpose(-2, -1) / denom.clamp(min=1e-6)
        attn = attn / self.tau.clamp(min=0.01).reshape(1, self.num_heads, 1, 1)
        attn = attn + self._relative_positional_encodings()
        if mask is not None:
            attn = attn + mask
        attn = self.attn_drop(attn.softmax(dim=-1))
        out = (attn @ value).transpose(1, 2).reshape(bsz, seq_len, embed_dim)
        return self.proj_drop(self.proj(out))


class SwinDecoderBlock(nn.Module):
    def __init__(self, dim: int, num_heads: int, window_size: Tuple[int, int]) -> None:
        super().__init__()
        self.attn = WindowMultiHeadAttention(dim, num_heads, window_size)
        self.norm1 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.norm2 = nn.LayerNorm(dim)

    def forward(self, x: Tensor) -> Tensor:
        x = x + self.norm1(self.attn(x))
        return x + self.norm2(self.mlp(x))
