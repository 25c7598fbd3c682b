import torch.nn as nn


class Transformer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embed = nn.Embedding(cfg.vocab_size, cfg.dim)
        layer = nn.TransformerEncoderLayer(cfg.dim, cfg.n_heads, 4 * cfg.dim, batch_first=True)
        self.layers = nn.TransformerEncoder(layer, cfg.n_layers)
        self.norm = nn.LayerNorm(cfg.dim)
        self.output = nn.Linear(cfg.dim, cfg.vocab_size, bias=False)

    def forward(self, tokens):
        h = self.layers(self.embed(tokens), is_causal=True,
                        mask=nn.Transformer.generate_square_subsequent_mask(tokens.size(1), device=tokens.device))
        return self.output(self.norm(h))
