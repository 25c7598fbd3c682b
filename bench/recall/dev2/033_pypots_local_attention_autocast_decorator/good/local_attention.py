import torch
import torch.nn.functional as F
from torch import nn


def rotate_half(x):
    x = x.reshape(*x.shape[:-1], 2, -1)
    x1, x2 = x.unbind(dim=-2)
    return torch.cat((-x2, x1), dim=-1)


@torch.amp.autocast("cuda", enabled=False)
def apply_rotary_pos_emb(q, k, freqs):
    q, k = map(lambda t: (t * freqs.cos()) + (rotate_half(t) * freqs.sin()), (q, k))
    return q, k


class LocalAttention(nn.Module):
    def __init__(self, window_size, dim_head, dropout=0.0):
        super().__init__()
        self.window_size = window_size
        self.dropout = nn.Dropout(dropout)
        inv_freq = 1.0 / (10000 ** (torch.arange(0, dim_head, 2).float() / dim_head))
        self.register_buffer("inv_freq", inv_freq)

    def forward(self, q, k, v):
        t = torch.arange(q.shape[-2], device=q.device).type_as(self.inv_freq)
        freqs = torch.einsum("i,j->ij", t, self.inv_freq)
        freqs = torch.cat((freqs, freqs), dim=-1)
        q, k = apply_rotary_pos_emb(q, k, freqs)
        attn = F.softmax(q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5, dim=-1)
        return self.dropout(attn) @ v
