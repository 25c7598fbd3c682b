import torch
import torch.nn as nn
import torch.nn.functional as F


class Seq2SeqASR(nn.Module):
    """Small attention encoder-decoder that returns the summed token loss of each utterance."""

    def __init__(self, n_mels=80, vocab_size=5000, d_model=256, n_layers=4):
        super().__init__()
        self.frontend = nn.Sequential(
            nn.Conv1d(n_mels, d_model, kernel_size=3, stride=2, padding=1),
            nn.ReLU(),
            nn.Conv1d(d_model, d_model, kernel_size=3, stride=2, padding=1),
            nn.ReLU(),
        )
        layer = nn.TransformerEncoderLayer(d_model, nhead=4, dim_feedforward=1024, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=n_layers)
        self.embed = nn.Embedding(vocab_size, d_model)
        dec_layer = nn.TransformerDecoderLayer(d_model, nhead=4, dim_feedforward=1024, dropout=0.1, batch_first=True)
        self.decoder = nn.TransformerDecoder(dec_layer, num_layers=2)
        self.proj = nn.Linear(d_model, vocab_size)

    def forward(self, feats, ids, labels, paddings, label_smooth=0.0):
        enc = self.encoder(self.frontend(feats.transpose(1, 2)).transpose(1, 2))
        causal = torch.triu(torch.ones(ids.size(1), ids.size(1), dtype=torch.bool, device=ids.device), diagonal=1)
        dec = self.decoder(self.embed(ids), enc, tgt_mask=causal)
        logits = self.proj(dec)
        ce = F.cross_entropy(
            logits.transpose(1, 2), labels, reduction="none", label_smoothing=label_smooth
        )
        return (ce * (1 - paddings)).sum(dim=1)
