import numpy as np
import torch
import torch.nn as nn

import onmt

MAX_SIZE = 5000


class TransformerDecoderLayer(nn.Module):
    def __init__(self, size, dropout, head_count=8, hidden_size=2048):
        super(TransformerDecoderLayer, self).__init__()
        self.self_attn = onmt.modules.MultiHeadedAttention(head_count, size, p=dropout)
        self.context_attn = onmt.modules.MultiHeadedAttention(head_count, size, p=dropout)
        self.feed_forward = onmt.modules.PositionwiseFeedForward(size, hidden_size, dropout)
        mask = self._get_attn_subsequent_mask(MAX_SIZE)
        self.register_buffer("mask", mask)

    def forward(self, inputs, context, src_pad_mask, tgt_pad_mask):
        dec_mask = torch.gt(tgt_pad_mask + self.mask[:, : tgt_pad_mask.size(1), : tgt_pad_mask.size(1)].expand_as(tgt_pad_mask), 0)
        query, attn = self.self_attn(inputs, inputs, inputs, mask=dec_mask)
        mid, attn = self.context_attn(context, context, query, mask=src_pad_mask)
        return self.feed_forward(mid), attn

    def _get_attn_subsequent_mask(self, size):
        attn_shape = (1, size, size)
        subsequent_mask = np.triu(np.ones(attn_shape), k=1).astype("uint8")
        return torch.from_numpy(subsequent_mask)
