import torch.nn as nn
from torch.utils.checkpoint import checkpoint_sequential


class TransformerLayer(nn.Module):
    def __init__(self, dim, heads, dropout_rate=0.4, attn_dropout=0.05):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, dropout=attn_dropout, batch_first=True)
        self.drop1 = nn.Dropout(dropout_rate)
        self.norm2 = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, dim * 2), nn.Dropout(dropout_rate), nn.ReLU(), nn.Linear(dim * 2, dim), nn.Dropout(dropout_rate))

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.drop1(self.attn(h, h, h, need_weights=False)[0])
        return x + self.ff(self.norm2(x))


class Enformer(nn.Module):
    def __init__(self, dim=1536, depth=11, heads=8, use_checkpointing=False):
        super().__init__()
        self.use_checkpointing = use_checkpointing
        self.transformer = nn.Sequential(*[TransformerLayer(dim, heads) for _ in range(depth)])

    def forward(self, x):
        if self.use_checkpointing:
            return checkpoint_sequential(self.transformer, len(self.transformer), x, use_reentrant=False)
        return self.transformer(x)
