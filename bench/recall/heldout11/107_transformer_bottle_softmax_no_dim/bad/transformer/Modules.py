import numpy as np
import torch
import torch.nn as nn


class Bottle(nn.Module):
    """Flatten the leading two dims before the wrapped op, restore them after."""

    def forward(self, input):
        if len(input.size()) <= 2:
            return super(Bottle, self).forward(input)
        size = input.size()[:2]
        out = super(Bottle, self).forward(input.view(size[0] * size[1], -1))
        return out.view(size[0], size[1], -1)


class BottleSoftmax(Bottle, nn.Softmax):
    """Reshape routine around a softmax."""
    pass


class ScaledDotProductAttention(nn.Module):
    def __init__(self, d_model, attn_dropout=0.1):
        super(ScaledDotProductAttention, self).__init__()
        self.temper = np.power(d_model, 0.5)
        self.dropout = nn.Dropout(attn_dropout)
        self.softmax = BottleSoftmax()  # expect: TCK608

    def forward(self, q, k, v, attn_mask=None):
        attn = torch.bmm(q, k.transpose(1, 2)) / self.temper
        if attn_mask is not None:
            attn = attn.masked_fill(attn_mask, -float("inf"))
        attn = self.softmax(attn)
        attn = self.dropout(attn)
        return torch.bmm(attn, v), attn
