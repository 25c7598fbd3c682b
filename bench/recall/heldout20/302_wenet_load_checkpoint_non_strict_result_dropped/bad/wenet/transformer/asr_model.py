import torch
import torch.nn as nn


class ASRModel(nn.Module):
    def __init__(self, input_dim, vocab_size, hidden=256, num_layers=6, ctc_weight=0.3):
        super().__init__()
        self.embed = nn.Linear(input_dim, hidden)
        layer = nn.TransformerEncoderLayer(hidden, nhead=4, dim_feedforward=4 * hidden, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers)
        self.ctc_lo = nn.Linear(hidden, vocab_size)
        self.ctc = nn.CTCLoss(blank=0, reduction="mean", zero_infinity=True)
        self.ctc_weight = ctc_weight

    def forward(self, feats, feats_lengths, text, text_lengths):
        hidden = self.encoder(self.embed(feats))
        log_probs = self.ctc_lo(hidden).log_softmax(dim=-1).transpose(0, 1)
        loss = self.ctc(log_probs, text, feats_lengths, text_lengths)
        return {"loss": loss}
