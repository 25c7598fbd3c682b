import torch
from torch import nn


class LanguageModel(nn.Module):
    def __init__(self, vocab_size=32000, dim=512, layers=6):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim)
        block = nn.TransformerEncoderLayer(dim, nhead=8, batch_first=True)
        self.encoder = nn.TransformerEncoder(block, num_layers=layers)
        self.head = nn.Linear(dim, vocab_size)

    def forward(self, tokens):
        return self.head(self.encoder(self.embed(tokens)))

    def loss(self, tokens, targets):
        logits = self(tokens)
        return nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
