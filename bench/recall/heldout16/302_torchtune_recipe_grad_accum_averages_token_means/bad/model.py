import torch
import torch.nn as nn


class TinyDecoder(nn.Module):
    def __init__(self, vocab_size=1000, dim=128, n_layers=2, n_heads=4):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim)
        layer = nn.TransformerEncoderLayer(dim, n_heads, 4 * dim, batch_first=True)
        self.blocks = nn.TransformerEncoder(layer, n_layers)
        self.norm = nn.LayerNorm(dim)
        self.output = nn.Linear(dim, vocab_size, bias=False)

    def forward(self, tokens):
        seq_len = tokens.shape[1]
        causal = torch.triu(torch.full((seq_len, seq_len), float("-inf"), device=tokens.device), diagonal=1)
        h = self.blocks(self.embed(tokens), mask=causal)
        return self.output(self.norm(h))
