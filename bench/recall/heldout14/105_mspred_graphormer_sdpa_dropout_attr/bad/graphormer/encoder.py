import torch
import torch.nn as nn

from .multihead_attention import MultiheadAttention


class GraphormerEncoderLayer(nn.Module):
    def __init__(self, dim, heads, ffn_dim, dropout=0.1, attention_dropout=0.1):
        super().__init__()
        self.self_attn = MultiheadAttention(dim, heads, dropout=attention_dropout)
        self.norm1 = nn.LayerNorm(dim)
        self.ffn = nn.Sequential(nn.Linear(dim, ffn_dim), nn.GELU(), nn.Dropout(dropout), nn.Linear(ffn_dim, dim))
        self.norm2 = nn.LayerNorm(dim)
        self.drop = nn.Dropout(dropout)

    def forward(self, x, attn_bias):
        x = x + self.drop(self.self_attn(self.norm1(x), attn_bias))
        return x + self.drop(self.ffn(self.norm2(x)))


class GraphormerEncoder(nn.Module):
    def __init__(self, num_atom_types=128, dim=256, heads=8, layers=4, max_dist=32, num_bins=1000):
        super().__init__()
        self.heads = heads
        self.atom_embed = nn.Embedding(num_atom_types, dim)
        self.spatial_bias = nn.Embedding(max_dist + 1, heads)
        self.layers = nn.ModuleList([GraphormerEncoderLayer(dim, heads, 4 * dim) for _ in range(layers)])
        self.norm = nn.LayerNorm(dim)
        self.spectrum_head = nn.Linear(dim, num_bins)

    def forward(self, atoms, dist):
        x = self.atom_embed(atoms)
        bias = self.spatial_bias(dist.clamp(max=self.spatial_bias.num_embeddings - 1))
        bias = bias.permute(0, 3, 1, 2)
        for layer in self.layers:
            x = layer(x, bias)
        return torch.sigmoid(self.spectrum_head(self.norm(x).mean(1)))
