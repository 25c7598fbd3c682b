"""A reduced Informer: embeddings from embed.py, a transformer encoder/decoder, a linear head."""

import torch.nn as nn

from models.embed import DataEmbedding


class Informer(nn.Module):
    def __init__(self, enc_in, dec_in, c_out, d_model=512, n_heads=8, e_layers=2, d_layers=1,
                 dropout=0.05, embed="fixed", freq="h"):
        super(Informer, self).__init__()
        self.enc_embedding = DataEmbedding(enc_in, d_model, embed, freq, dropout)
        self.dec_embedding = DataEmbedding(dec_in, d_model, embed, freq, dropout)
        self.transformer = nn.Transformer(
            d_model=d_model, nhead=n_heads, num_encoder_layers=e_layers,
            num_decoder_layers=d_layers, dropout=dropout, batch_first=True,
        )
        self.projection = nn.Linear(d_model, c_out)

    def forward(self, x_enc, x_mark_enc, x_dec, x_mark_dec):
        enc = self.enc_embedding(x_enc, x_mark_enc)
        dec = self.dec_embedding(x_dec, x_mark_dec)
        out = self.transformer(enc, dec)
        return self.projection(out)
