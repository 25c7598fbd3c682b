import torch
import torch.utils.checkpoint
from torch import nn


class DiTBlock(nn.Module):
    def __init__(self, dim, heads=8, ff_mult=4, dropout=0.1):
        super().__init__()
        self.attn_norm = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, dropout=dropout, batch_first=True)
        self.ff_norm = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, dim * ff_mult), nn.GELU(), nn.Linear(dim * ff_mult, dim))
        self.time_mod = nn.Linear(dim, dim * 2)

    def forward(self, x, t, mask):
        scale, shift = self.time_mod(t).unsqueeze(1).chunk(2, dim=-1)
        h = self.attn_norm(x) * (1 + scale) + shift
        attn_out, _ = self.attn(h, h, h, key_padding_mask=~mask)
        x = x + attn_out
        return x + self.ff(self.ff_norm(x))


class DiT(nn.Module):
    def __init__(self, dim=512, depth=8, mel_dim=100, checkpoint_activations=False):
        super().__init__()
        self.input_proj = nn.Linear(mel_dim * 2, dim)
        self.time_embed = nn.Sequential(nn.Linear(1, dim), nn.SiLU(), nn.Linear(dim, dim))
        self.transformer_blocks = nn.ModuleList(DiTBlock(dim) for _ in range(depth))
        self.norm_out = nn.LayerNorm(dim)
        self.proj_out = nn.Linear(dim, mel_dim)
        self.checkpoint_activations = checkpoint_activations

    def ckpt_wrapper(self, module):
        def ckpt_forward(*inputs):
            return module(*inputs)

        return ckpt_forward

    def forward(self, x, cond, time, mask):
        t = self.time_embed(time.unsqueeze(-1))
        x = self.input_proj(torch.cat([x, cond], dim=-1))
        for block in self.transformer_blocks:
            if self.checkpoint_activations:
                x = torch.utils.checkpoint.checkpoint(self.ckpt_wrapper(block), x, t, mask, use_reentrant=False)
            else:
                x = block(x, t, mask)
        return self.proj_out(self.norm_out(x))
