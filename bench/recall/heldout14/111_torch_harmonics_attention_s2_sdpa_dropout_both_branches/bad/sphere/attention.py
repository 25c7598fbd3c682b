import math
from typing import Optional, Union

import torch
import torch.nn as nn
import torch.nn.functional as F


def equiangular_weights(nlat: int) -> torch.Tensor:
    """Simple quadrature weights for an equiangular latitude grid (proportional to cos(lat))."""
    lats = torch.linspace(-math.pi / 2, math.pi / 2, nlat)
    w = torch.cos(lats).clamp_min(1e-6)
    return w / w.sum() * 2.0


class AttentionS2(nn.Module):
    """Global self-attention on the sphere; quadrature weights enter the softmax as an additive mask."""

    def __init__(self, in_channels: int, num_heads: int, in_shape, drop_rate: float = 0.0,
                 scale: Optional[Union[float, torch.Tensor]] = None, bias: bool = True):
        super().__init__()
        self.nlat, self.nlon = in_shape
        self.num_heads = num_heads
        self.in_channels = in_channels
        self.drop_rate = drop_rate
        self.scale = scale

        quad_weights = 2.0 * torch.pi * equiangular_weights(self.nlat) / self.nlon
        quad_weights = torch.tile(quad_weights.reshape(-1, 1), (1, self.nlon)).flatten()
        self.register_buffer("log_quad_weights", torch.log(quad_weights).reshape(1, 1, -1), persistent=False)

        bound = math.sqrt(3.0 / in_channels)
        self.q_weights = nn.Parameter(bound * (2 * torch.rand(in_channels, in_channels, 1, 1) - 1))
        self.k_weights = nn.Parameter(bound * (2 * torch.rand(in_channels, in_channels, 1, 1) - 1))
        self.v_weights = nn.Parameter(bound * (2 * torch.rand(in_channels, in_channels, 1, 1) - 1))
        self.proj_weights = nn.Parameter(bound * (2 * torch.rand(in_channels, in_channels, 1, 1) - 1))
        self.bias = nn.Parameter(torch.zeros(in_channels)) if bias else None

    def _heads(self, x: torch.Tensor) -> torch.Tensor:
        b, _, h, w = x.shape
        x = x.reshape(b, self.num_heads, -1, h, w)
        return x.permute(0, 1, 3, 4, 2).reshape(b, self.num_heads, h * w, -1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        query = self._heads(F.conv2d(x, self.q_weights))
        key = self._heads(F.conv2d(x, self.k_weights))
        value = self._heads(F.conv2d(x, self.v_weights))

        if isinstance(self.scale, torch.Tensor):
            query = query * self.scale
            out = F.scaled_dot_product_attention(query, key, value, attn_mask=self.log_quad_weights, dropout_p=self.drop_rate, scale=1.0)  # expect: TCK604
        else:
            out = F.scaled_dot_product_attention(query, key, value, attn_mask=self.log_quad_weights, dropout_p=self.drop_rate, scale=self.scale)  # expect: TCK604

        b, _, _, c = out.shape
        out = out.permute(0, 1, 3, 2).reshape(b, self.num_heads * c, self.nlat, self.nlon)
        return F.conv2d(out, self.proj_weights, bias=self.bias)
