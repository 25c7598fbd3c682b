import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    """Base class every attention implementation of the registry derives from."""

    def forward(self, x, freqs_cos, freqs_sin, input_pos=None):
        raise NotImplementedError


class AttentionMHA(Attention):
    def __init__(self, dim, n_heads, max_seq_len):
        super().__init__()
        self.n_heads = n_heads
        self.head_dim = dim // n_heads
        self.wq = nn.Linear(dim, dim, bias=False)
        self.wk = nn.Linear(dim, dim, bias=False)
        self.wv = nn.Linear(dim, dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)
        mask = torch.tril(torch.ones(max_seq_len, max_seq_len, dtype=torch.bool))
        self.register_buffer("mask", mask, persistent=False)

    def forward(self, x, freqs_cos, freqs_sin, input_pos=None):
        bsz, seqlen, dim = x.shape
        q = self.wq(x).view(bsz, seqlen, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.wk(x).view(bsz, seqlen, self.n_heads, self.head_dim).transpose(1, 2)
        v = self.wv(x).view(bsz, seqlen, self.n_heads, self.head_dim).transpose(1, 2)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=self.mask[:seqlen, :seqlen])
        return self.wo(out.transpose(1, 2).reshape(bsz, seqlen, dim))
