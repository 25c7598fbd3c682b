import math

import torch
from torch import nn


class DotProductAttention(nn.Module):
    def __init__(self, dropout):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.attention_weights = None

    def forward(self, queries, keys, values):
        d = queries.shape[-1]
        scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
        self.attention_weights = torch.softmax(scores, dim=-1)
        return torch.bmm(self.dropout(self.attention_weights), values)


class DecoderBlock(nn.Module):
    def __init__(self, num_hiddens, dropout):
        super().__init__()
        self.attention1 = DotProductAttention(dropout)
        self.attention2 = DotProductAttention(dropout)
        self.ffn = nn.Sequential(nn.Linear(num_hiddens, num_hiddens), nn.ReLU(), nn.Linear(num_hiddens, num_hiddens))
        self.norm = nn.LayerNorm(num_hiddens)

    def forward(self, x, enc_outputs):
        y = self.norm(x + self.attention1(x, x, x))
        z = self.norm(y + self.attention2(y, enc_outputs, enc_outputs))
        return self.norm(z + self.ffn(z))


class TransformerDecoder(nn.Module):
    def __init__(self, vocab_size, num_hiddens, num_layers, dropout):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, num_hiddens)
        self.blks = nn.ModuleList([DecoderBlock(num_hiddens, dropout) for _ in range(num_layers)])
        self.dense = nn.Linear(num_hiddens, vocab_size)
        self._attention_weights = [[None] * num_layers for _ in range(2)]

    def forward(self, x, enc_outputs):
        x = self.embedding(x)
        for i, blk in enumerate(self.blks):
            x = blk(x, enc_outputs)
            self._attention_weights[0][i] = blk.attention1.attention_weights
            self._attention_weights[1][i] = blk.attention2.attention_weights
        return self.dense(x)

    @property
    def attention_weights(self):
        return self._attention_weights
