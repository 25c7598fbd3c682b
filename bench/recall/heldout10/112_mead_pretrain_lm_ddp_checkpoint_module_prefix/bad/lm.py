import torch
from torch import nn


class TransformerLM(nn.Module):
    def __init__(self, vocab=8000, d_model=256, layers=4, heads=4, dropout=0.1):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        layer = nn.TransformerEncoderLayer(d_model, heads, 4 * d_model, dropout, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.proj = nn.Linear(d_model, vocab)

    def forward(self, x):
        n = x.size(1)
        mask = torch.triu(torch.full((n, n), float("-inf"), device=x.device), diagonal=1)
        return self.proj(self.encoder(self.embed(x), mask=mask))
