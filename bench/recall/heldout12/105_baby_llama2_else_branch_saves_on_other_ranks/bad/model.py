import torch
from torch import nn


class TinyLlama(nn.Module):
    def __init__(self, vocab_size=512, dim=128, n_layers=2, n_heads=4, max_seq_len=64):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab_size, dim)
        layer = nn.TransformerEncoderLayer(dim, n_heads, dim * 4, batch_first=True, norm_first=True)
        self.layers = nn.TransformerEncoder(layer, n_layers)
        self.norm = nn.LayerNorm(dim)
        self.output = nn.Linear(dim, vocab_size, bias=False)
        self.register_buffer("causal_mask", torch.triu(torch.full((max_seq_len, max_seq_len), float("-inf")), 1), persistent=False)

    def forward(self, tokens, targets=None):
        seq_len = tokens.shape[1]
        h = self.layers(self.tok_embeddings(tokens), mask=self.causal_mask[:seq_len, :seq_len])
        logits = self.output(self.norm(h))
        loss = None
        if targets is not None:
            loss = nn.functional.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss
