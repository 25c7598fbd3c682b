import torch
from torch import nn


class Seq2Seq(nn.Module):
    def __init__(self, src_vocab=5000, tgt_vocab=5000, dim=256):
        super().__init__()
        self.src_embed = nn.Embedding(src_vocab, dim)
        self.tgt_embed = nn.Embedding(tgt_vocab, dim)
        self.encoder = nn.LSTM(dim, dim, batch_first=True)
        self.decoder = nn.LSTM(dim, dim, batch_first=True)
        self.dropout = nn.Dropout(0.3)
        self.generator = nn.Linear(dim, tgt_vocab)

    def forward(self, src, tgt):
        _, state = self.encoder(self.dropout(self.src_embed(src)))
        dec_out, _ = self.decoder(self.dropout(self.tgt_embed(tgt[:, :-1])), state)
        return self.generator(self.dropout(dec_out))
