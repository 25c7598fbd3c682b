import torch.nn as nn

from fused_norm import FusedLayerNorm, FusedRMSNorm


class Block(nn.Module):
    def __init__(self, dim, heads, rms=False):
        super().__init__()
        norm = FusedRMSNorm if rms else FusedLayerNorm
        self.norm1 = norm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm2 = norm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))


class Encoder(nn.Module):
    def __init__(self, vocab, dim=512, heads=8, depth=6, rms=False):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList([Block(dim, heads, rms) for _ in range(depth)])
        self.norm = FusedLayerNorm(dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))
