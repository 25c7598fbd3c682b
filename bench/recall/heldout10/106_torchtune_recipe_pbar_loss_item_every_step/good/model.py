import torch
from torch import nn


class TinyDecoder(nn.Module):
    def __init__(self, vocab=1000, dim=128, layers=2):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        layer = nn.TransformerEncoderLayer(dim, 4, dim * 4, batch_first=True)
        self.body = nn.TransformerEncoder(layer, layers)
        self.out = nn.Linear(dim, vocab)

    def forward(self, input_ids):
        n = input_ids.size(1)
        mask = torch.triu(torch.full((n, n), float("-inf"), device=input_ids.device), diagonal=1)
        return self.out(self.body(self.tok(input_ids), mask=mask))
