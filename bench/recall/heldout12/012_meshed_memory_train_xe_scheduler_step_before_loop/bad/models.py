import torch
import torch.nn as nn
import torch.nn.functional as F


class Transformer(nn.Module):
    def __init__(self, vocab_size, d_model=512, feat_dim=2048, n_layers=3):
        super().__init__()
        self.d_model = d_model
        self.proj = nn.Linear(feat_dim, d_model)
        self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(d_model, 8, batch_first=True), n_layers)
        self.embed = nn.Embedding(vocab_size, d_model)
        self.decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(d_model, 8, batch_first=True), n_layers)
        self.out = nn.Linear(d_model, vocab_size)

    def forward(self, detections, captions):
        memory = self.encoder(self.proj(detections))
        mask = nn.Transformer.generate_square_subsequent_mask(captions.size(1), device=captions.device)
        h = self.decoder(self.embed(captions), memory, tgt_mask=mask)
        return F.log_softmax(self.out(h), dim=-1)
