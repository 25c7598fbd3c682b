import torch
from torch import nn
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

_compiled_flex_attention = torch.compile(flex_attention)


def make_mask_mod(document_ids):
    def mask_mod(b, h, q_idx, kv_idx):
        return (q_idx >= kv_idx) & (document_ids[b, q_idx] == document_ids[b, kv_idx])

    return mask_mod


class PEagleAttention(nn.Module):
    def __init__(self, dim, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)

    def forward(self, x, document_ids):
        b, s, d = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.n_heads, d // self.n_heads).permute(2, 0, 3, 1, 4)
        block_mask = create_block_mask(make_mask_mod(document_ids), B=b, H=None, Q_LEN=s, KV_LEN=s, device=x.device)
        y = _compiled_flex_attention(q, k, v, block_mask=block_mask)
        return self.out(y.transpose(1, 2).reshape(b, s, d))
