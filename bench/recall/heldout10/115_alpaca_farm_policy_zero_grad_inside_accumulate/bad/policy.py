import torch
from torch import nn


class Policy(nn.Module):
    def __init__(self, vocab=1000, dim=128):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.body = nn.GRU(dim, dim, batch_first=True)
        self.head = nn.Linear(dim, vocab)

    def forward(self, tokens):
        h, _ = self.body(self.embed(tokens))
        return self.head(h).log_softmax(-1)
