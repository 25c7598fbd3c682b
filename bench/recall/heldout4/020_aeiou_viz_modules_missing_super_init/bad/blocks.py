import torch
from torch import nn


class ResConvBlock(nn.Module):
    def __init__(self, c_in, c_mid, c_out, dropout_last=True):  # expect: TCK603
        self.skip = None if c_in == c_out else nn.Conv1d(c_in, c_out, 1, bias=False)
        self.main = nn.Sequential(
            nn.Conv1d(c_in, c_mid, 5, padding=2),
            nn.GroupNorm(1, c_mid),
            nn.GELU(),
            nn.Conv1d(c_mid, c_out, 5, padding=2),
        )

    def forward(self, x):
        skip = x if self.skip is None else self.skip(x)
        return self.main(x) + skip


class SelfAttention1d(nn.Module):
    def __init__(self, c_in, n_head=1):  # expect: TCK603
        self.n_head = n_head
        self.norm = nn.GroupNorm(1, c_in)
        self.qkv_proj = nn.Conv1d(c_in, c_in * 3, 1)
        self.out_proj = nn.Conv1d(c_in, c_in, 1)

    def forward(self, x):
        q, k, v = self.qkv_proj(self.norm(x)).chunk(3, dim=1)
        att = torch.softmax(q.transpose(1, 2) @ k / k.shape[1] ** 0.5, dim=-1)
        return x + self.out_proj((att @ v.transpose(1, 2)).transpose(1, 2))
