from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class ModelArgs:
    dim: int = 512
    n_layers: int = 8
    n_heads: int = 8
    vocab_size: int = 64793
    max_seq_len: int = 512
    dropout: float = 0.0


class Transformer(nn.Module):
    def __init__(self, args: ModelArgs):
        super().__init__()
        self.tok_embeddings = nn.Embedding(args.vocab_size, args.dim)
        layer = nn.TransformerEncoderLayer(args.dim, args.n_heads, 4 * args.dim, args.dropout, batch_first=True)
        self.layers = nn.TransformerEncoder(layer, args.n_layers)
        self.norm = nn.LayerNorm(args.dim)
        self.output = nn.Linear(args.dim, args.vocab_size, bias=False)
        self.last_loss = None

    def forward(self, tokens, targets=None):
        h = self.norm(self.layers(self.tok_embeddings(tokens)))
        logits = self.output(h)
        if targets is not None:
            self.last_loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        return logits
