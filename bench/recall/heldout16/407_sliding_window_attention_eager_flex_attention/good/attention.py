import torch
from torch import nn
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

compiled_flex_attention = torch.compile(flex_attention)


def sliding_window(window):
    def mask_mod(b, h, q_idx, kv_idx):
        causal = q_idx >= kv_idx
        return causal & (q_idx - kv_idx <= window)
    return mask_mod


class WindowedSelfAttention(nn.Module):
    def __init__(self, dim, num_heads, window):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.window = window
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, block_mask):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        out = compiled_flex_attention(q, k, v, block_mask=block_mask)
        return self.proj(out.transpose(1, 2).reshape(b, t, -1))


class WindowedTransformer(nn.Module):
    def __init__(self, vocab=32000, dim=512, depth=6, num_heads=8, window=256):
        super().__init__()
        self.window = window
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList([WindowedSelfAttention(dim, num_heads, window) for _ in range(depth)])
        self.norms = nn.ModuleList([nn.LayerNorm(dim) for _ in range(depth)])
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, tokens):
        t = tokens.size(1)
        block_mask = create_block_mask(sliding_window(self.window), B=None, H=None,
                                       Q_LEN=t, KV_LEN=t, device=tokens.device)
        x = self.embed(tokens)
        for attn, norm in zip(self.blocks, self.norms):
            x = x + attn(norm(x), block_mask)
        return self.head(x)
