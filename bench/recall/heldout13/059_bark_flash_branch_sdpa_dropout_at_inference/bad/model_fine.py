import math

import torch
import torch.nn as nn
from torch.nn import functional as F


class NonCausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, dropout, bias=False):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd, bias=bias)
        self.c_proj = nn.Linear(n_embd, n_embd, bias=bias)
        self.attn_dropout = nn.Dropout(dropout)
        self.resid_dropout = nn.Dropout(dropout)
        self.n_head = n_head
        self.dropout = dropout
        self.flash = hasattr(F, "scaled_dot_product_attention")

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        if self.flash:
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=self.dropout, is_causal=False)  # expect: TCK604
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = F.softmax(att, dim=-1)
            att = self.attn_dropout(att)
            y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


@torch.no_grad()
def generate_fine(attn, codes):
    attn.eval()
    return attn(codes)


if __name__ == "__main__":
    layer = NonCausalSelfAttention(n_embd=128, n_head=4, dropout=0.1)
    x = torch.randn(1, 16, 128)
    print(torch.equal(generate_fine(layer, x), generate_fine(layer, x)))
