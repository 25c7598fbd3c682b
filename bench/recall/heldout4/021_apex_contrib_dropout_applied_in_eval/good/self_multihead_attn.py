import torch
import torch.nn.functional as F
from torch import nn


class SelfMultiheadAttn(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=False):
        super().__init__()
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.dropout = dropout
        self.in_proj = nn.Linear(embed_dim, 3 * embed_dim, bias=bias)
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=bias)

    def forward(self, query):
        seq, batch, _ = query.shape
        q, k, v = self.in_proj(query).chunk(3, dim=-1)
        q = q.reshape(seq, batch * self.num_heads, self.head_dim).transpose(0, 1)
        k = k.reshape(seq, batch * self.num_heads, self.head_dim).transpose(0, 1)
        v = v.reshape(seq, batch * self.num_heads, self.head_dim).transpose(0, 1)
        attn = torch.softmax(q @ k.transpose(1, 2) / self.head_dim ** 0.5, dim=-1)
        attn = F.dropout(attn, p=self.dropout, training=self.training)
        out = (attn @ v).transpose(0, 1).reshape(seq, batch, self.embed_dim)
        return self.out_proj(out)
