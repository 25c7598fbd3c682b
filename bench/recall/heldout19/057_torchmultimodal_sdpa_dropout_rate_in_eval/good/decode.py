import torch
from torch import nn

from multi_head_attention import MultiHeadAttentionWithCache, MultiHeadSelfAttention


class DecoderLayer(nn.Module):
    def __init__(self, dim=256, heads=8, dropout=0.1):
        super().__init__()
        self.self_attn = MultiHeadSelfAttention(dim, heads, dropout=dropout)
        self.cross_attn = MultiHeadAttentionWithCache(dim, dim, heads, dropout=dropout)
        self.norm1 = nn.LayerNorm(dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x, memory):
        x = x + self.self_attn(self.norm1(x), is_causal=True)
        x = x + self.cross_attn(self.norm2(x), memory, memory)
        return x + self.mlp(x)


@torch.no_grad()
def main():
    layer = DecoderLayer()
    layer.eval()
    x = torch.randn(2, 16, 256)
    memory = torch.randn(2, 32, 256)
    out1 = layer(x, memory)
    out2 = layer(x, memory)
    print("deterministic in eval:", torch.allclose(out1, out2))


if __name__ == "__main__":
    main()
