"""CROMA: contrastive radar-optical masked autoencoder encoders (SAR, optical and joint)."""

import itertools
import math
from collections.abc import Sequence

import torch
from einops import rearrange
from torch import Tensor, nn


def get_2dalibi(num_heads: int, num_patches: int) -> Tensor:
    """2-D ALiBi: a per-head penalty proportional to the distance between patches."""
    side = int(math.sqrt(num_patches))
    points = list(itertools.product(range(side), range(side)))
    start = 2 ** (-(2 ** -(math.log2(num_heads) - 3)))
    slopes = torch.Tensor([start * start**i for i in range(num_heads)]).unsqueeze(1)
    columns = []
    for p1 in points:
        for p2 in points:
            dist = math.sqrt((p1[0] - p2[0]) ** 2 + (p1[1] - p2[1]) ** 2)
            columns.append(-dist * slopes)
    return torch.cat(columns, dim=1).view(1, num_heads, num_patches, num_patches)


class FFN(nn.Module):
    def __init__(self, dim: int, mult: int = 4, dropout: float = 0.0) -> None:
        super().__init__()
        self.input_norm = nn.LayerNorm(dim)
        self.net = nn.Sequential(nn.Linear(dim, dim * mult), nn.GELU(), nn.Dropout(dropout), nn.Linear(dim * mult, dim))

    def forward(self, x: Tensor) -> Tensor:
        return self.net(self.input_norm(x))


class Attention(nn.Module):
    def __init__(self, dim: int, num_heads: int = 8, dropout: float = 0.0) -> None:
        super().__init__()
        self.num_heads = num_heads
        self.scale = (dim // num_heads) ** -0.5
        self.input_norm = nn.LayerNorm(dim)
        self.to_q = nn.Linear(dim, dim, bias=False)
        self.to_kv = nn.Linear(dim, dim * 2, bias=False)
        self.to_out = nn.Linear(dim, dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: Tensor, relative_position_bias: Tensor, context: Tensor | None = None) -> Tensor:
        x = self.input_norm(x)
        context = x if context is None else self.input_norm(context)
        q = self.to_q(x)
        k, v = self.to_kv(context).chunk(2, dim=-1)
        q, k, v = (rearrange(t, "b n (h d) -> b h n d", h=self.num_heads) for t in (q, k, v))
        scores = torch.einsum("bhid,bhjd->bhij", q, k) * self.scale + relative_position_bias
        attn = self.dropout(scores.softmax(dim=-1))
        out = rearrange(torch.einsum("bhij,bhjd->bhid", attn, v), "b h n d -> b n (h d)")
        return self.to_out(out)


class Transformer(nn.Module):
    def __init__(self, dim: int, depth: int, num_heads: int = 16, cross: bool = False) -> None:
        super().__init__()
        self.cross = cross
        self.layers = nn.ModuleList(
            nn.ModuleList([Attention(dim, num_heads), Attention(dim, num_heads) if cross else nn.Identity(), FFN(dim)])
            for _ in range(depth)
        )
        self.norm_out = nn.LayerNorm(dim)

    def forward(self, x: Tensor, relative_position_bias: Tensor, context: Tensor | None = None) -> Tensor:
        for self_attn, cross_attn, ffn in self.layers:
            x = self_attn(x, relative_position_bias) + x
            if self.cross:
                x = cross_attn(x, relative_position_bias, context) + x
            x = ffn(x) + x
        return self.norm_out(x)


class ViT(nn.Module):
    def __init__(self, dim: int, depth: int, in_channels: int, patch_size: int = 8) -> None:
        super().__init__()
        self.patch_size = patch_size
        self.linear_input = nn.Linear(patch_size * patch_size * in_channels, dim)
        self.transformer = Transformer(dim, depth)

    def forward(self, imgs: Tensor, attn_bias: Tensor) -> Tensor:
        x = rearrange(imgs, "b c (h i) (w j) -> b (h w) (c i j)", i=self.patch_size, j=self.patch_size)
        return self.transformer(self.linear_input(x), relative_position_bias=attn_bias)


class CROMA(nn.Module):
    def __init__(self, modalities: Sequence[str] = ("sar", "optical"), encoder_dim: int = 768,
                 encoder_depth: int = 12, num_heads: int = 16, image_size: int = 120) -> None:
        super().__init__()
        self.modalities = tuple(modalities)
        self.num_patches = (image_size // 8) ** 2
        self.register_buffer(
            "attn_bias", get_2dalibi(num_heads=num_heads, num_patches=self.num_patches), persistent=False
        )

        if "sar" in self.modalities:
            self.s1_encoder = ViT(encoder_dim, encoder_depth // 2, in_channels=2)
        if "optical" in self.modalities:
            self.s2_encoder = ViT(encoder_dim, encoder_depth, in_channels=12)
        if set(self.modalities) == {"sar", "optical"}:
            self.joint_encoder = Transformer(encoder_dim, encoder_depth // 2, num_heads, cross=True)

    def forward(self, x_sar: Tensor | None = None, x_optical: Tensor | None = None) -> dict[str, Tensor]:
        out: dict[str, Tensor] = {}
        if "sar" in self.modalities and x_sar is not None:
            out["sar_encodings"] = self.s1_encoder(x_sar, attn_bias=self.attn_bias)
            out["sar_GAP"] = out["sar_encodings"].mean(dim=1)
        if "optical" in self.modalities and x_optical is not None:
            out["optical_encodings"] = self.s2_encoder(x_optical, attn_bias=self.attn_bias)
            out["optical_GAP"] = out["optical_encodings"].mean(dim=1)
        if set(self.modalities) == {"sar", "optical"}:
            joint = self.joint_encoder(out["sar_encodings"], self.attn_bias, context=out["optical_encodings"])
            out["joint_encodings"] = joint
            out["joint_GAP"] = joint.mean(dim=1)
        return out
