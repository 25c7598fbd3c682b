import math

import torch
import torch.nn as nn


class Transformer(nn.Module):
    def __init__(self, src_vocab, tgt_vocab, d_model=512, n_heads=8, n_layers=6, d_ff=2048, dropout=0.1):
        super().__init__()
        self.d_model = d_model
        self.src_embed = nn.Embedding(src_vocab, d_model)
        self.tgt_embed = nn.Embedding(tgt_vocab, d_model)
        self.encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(d_model, n_heads, d_ff, dropout, batch_first=True), n_layers
        )
        self.decoder = nn.TransformerDecoder(
            nn.TransformerDecoderLayer(d_model, n_heads, d_ff, dropout, batch_first=True), n_layers
        )
        self.projection_layer = nn.Linear(d_model, tgt_vocab)

    def encode(self, src, src_key_padding_mask):
        return self.encoder(self.src_embed(src) * math.sqrt(self.d_model), src_key_padding_mask=src_key_padding_mask)

    def decode(self, memory, src_key_padding_mask, tgt, tgt_mask):
        x = self.tgt_embed(tgt) * math.sqrt(self.d_model)
        return self.decoder(x, memory, tgt_mask=tgt_mask, memory_key_padding_mask=src_key_padding_mask)

    def project(self, x):
        return self.projection_layer(x)


def build_transformer(src_vocab, tgt_vocab, **kwargs):
    model = Transformer(src_vocab, tgt_vocab, **kwargs)
    for p in model.parameters():
        if p.dim() > 1:
            nn.init.xavier_uniform_(p)
    return model
