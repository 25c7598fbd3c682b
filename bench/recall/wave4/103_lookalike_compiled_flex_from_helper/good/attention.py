import torch
import torch.nn as nn
from torch.nn.attention.flex_attention import BlockMask, flex_attention


def compile_flex_attention():
    try:
        return torch.compile(flex_attention, dynamic=False)
    except Exception:
        return torch.compile(flex_attention, dynamic=False, mode="max-autotune")


flex_attention_compiled = compile_flex_attention()


@torch.compiler.disable(recursive=False)
def compile_friendly_flex_attention(q, k, v, block_mask: BlockMask, **kwargs):
    return flex_attention_compiled(q, k, v, block_mask=block_mask, **kwargs)


class Attention(nn.Module):
    def __init__(self, d_model=512, n_heads=8):
        super().__init__()
        self.n_heads = n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=False)
        self.o = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x, block_mask):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.n_heads, d // self.n_heads).permute(2, 0, 3, 1, 4)
        out = compile_friendly_flex_attention(q, k, v, block_mask=block_mask)
        return self.o(out.transpose(1, 2).reshape(b, n, d))
