import torch
from torch import nn
from torch.utils import checkpoint


class HAB(nn.Module):
    """Hybrid attention block (window self-attention + channel attention), simplified."""

    def __init__(self, dim, num_heads, mlp_ratio=2.0):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, num_heads, batch_first=True)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, int(dim * mlp_ratio)), nn.GELU(), nn.Linear(int(dim * mlp_ratio), dim))

    def forward(self, x, x_size, rpi_sa, attn_mask):
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))


class OCAB(nn.Module):
    """Overlapping cross-attention block, simplified."""

    def __init__(self, dim, num_heads):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, num_heads, batch_first=True)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, x_size, rpi):
        h = self.norm(x)
        return x + self.proj(self.attn(h, h, h, need_weights=False)[0])


class AttenBlocks(nn.Module):
    def __init__(self, dim, depth, num_heads, use_checkpoint=False):
        super().__init__()
        self.use_checkpoint = use_checkpoint
        self.blocks = nn.ModuleList([HAB(dim, num_heads) for _ in range(depth)])
        self.overlap_attn = OCAB(dim, num_heads)

    def forward(self, x, x_size, params):
        use_chk = self.use_checkpoint and self.training
        for blk in self.blocks:
            if use_chk:
                x = checkpoint.checkpoint(blk, x, x_size, params["rpi_sa"], params["attn_mask"], use_reentrant=False)
            else:
                x = blk(x, x_size, params["rpi_sa"], params["attn_mask"])

        if use_chk:
            x = checkpoint.checkpoint(self.overlap_attn, x, x_size, params["rpi_oca"], use_reentrant=False)
        else:
            x = self.overlap_attn(x, x_size, params["rpi_oca"])
        return x


class HAT(nn.Module):
    def __init__(self, in_chans=3, embed_dim=96, depths=(6, 6, 6, 6), num_heads=6, upscale=4, use_checkpoint=False):
        super().__init__()
        self.conv_first = nn.Conv2d(in_chans, embed_dim, 3, 1, 1)
        self.layers = nn.ModuleList(
            [AttenBlocks(embed_dim, d, num_heads, use_checkpoint=use_checkpoint) for d in depths]
        )
        self.norm = nn.LayerNorm(embed_dim)
        self.conv_after_body = nn.Conv2d(embed_dim, embed_dim, 3, 1, 1)
        self.upsample = nn.Sequential(
            nn.Conv2d(embed_dim, in_chans * upscale**2, 3, 1, 1), nn.PixelShuffle(upscale)
        )

    def forward(self, x):
        feat = self.conv_first(x)
        b, c, h, w = feat.shape
        tokens = feat.flatten(2).transpose(1, 2)
        params = {"rpi_sa": None, "attn_mask": None, "rpi_oca": None}
        for layer in self.layers:
            tokens = layer(tokens, (h, w), params)
        tokens = self.norm(tokens)
        body = tokens.transpose(1, 2).reshape(b, c, h, w)
        return self.upsample(self.conv_after_body(body) + feat)
