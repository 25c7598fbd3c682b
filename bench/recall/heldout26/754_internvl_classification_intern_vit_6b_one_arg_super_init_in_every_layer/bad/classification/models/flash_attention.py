import torch.nn as nn
import torch.nn.functional as F


class FlashAttention(nn.Module):
    """Fused attention over packed qkv (b, s, 3, h, d); SDPA stands in for the flash-attn kernel."""

    def __init__(self, softmax_scale=None, attention_dropout=0.0):
        super().__init__()
        self.softmax_scale = softmax_scale
        self.dropout_p = attention_dropout

    def forward(self, qkv, key_padding_mask=None, causal=False, need_weights=False):
        q, k, v = qkv.unbind(2)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        out = F.scaled_dot_product_attention(
            q, k, v, dropout_p=self.dropout_p if self.training else 0.0, is_causal=causal, scale=self.softmax_scale)
        return out.transpose(1, 2), None
