import torch
from torch import nn
import torch.nn.functional as F


class CrossLingualLM(nn.Module):
    def __init__(self, vocab_size=1000, dim=256, layers=4):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim)
        block = nn.TransformerEncoderLayer(dim, nhead=8, batch_first=True)
        self.encoder = nn.TransformerEncoder(block, num_layers=layers)
        self.lm_head = nn.Linear(dim, vocab_size)

    def encode(self, tokens):
        return self.encoder(self.embed(tokens))

    def forward(self, tokens, targets, mode="mlm"):
        if mode == "mlm":
            return self.mlm_loss(tokens, targets)
        return self.translation_loss(tokens, targets)

    def mlm_loss(self, tokens, targets):
        logits = self.lm_head(self.encode(tokens))
        return F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=-100)

    def translation_loss(self, src, tgt):
        hidden = self.encode(src).mean(dim=1, keepdim=True)
        logits = self.lm_head(hidden).expand(-1, tgt.size(1), -1)
        return F.cross_entropy(logits.flatten(0, 1), tgt.flatten())
