import torch.nn as nn


class Transformer(nn.Module):
    def __init__(self, vocab_size, dim, depth, enable_weight_tying=False):
        super().__init__()
        self.enable_weight_tying = enable_weight_tying
        self.tok_embeddings = nn.Embedding(vocab_size, dim)
        self.layers = nn.ModuleDict({str(i): nn.TransformerEncoderLayer(dim, 8, batch_first=True) for i in range(depth)})
        self.norm = nn.LayerNorm(dim)
        self.output = nn.Linear(dim, vocab_size, bias=False)
        if enable_weight_tying:
            self.output.weight = self.tok_embeddings.weight

    def forward(self, tokens):
        h = self.tok_embeddings(tokens)
        for layer in self.layers.values():
            h = layer(h)
        return self.output(self.norm(h))
