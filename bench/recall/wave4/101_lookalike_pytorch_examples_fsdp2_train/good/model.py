import torch.nn as nn


class Transformer(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.tok_embeddings = nn.Embedding(args.vocab_size, args.dim)
        self.pos_embeddings = nn.Embedding(args.max_seq_len, args.dim)
        self.layers = nn.ModuleList(nn.TransformerEncoderLayer(args.dim, args.n_heads, dropout=args.dropout_p, batch_first=True) for _ in range(args.n_layers))
        self.norm = nn.LayerNorm(args.dim)
        self.output = nn.Linear(args.dim, args.vocab_size, bias=False)

    def reset_parameters(self):
        for module in self.modules():
            if module is not self and hasattr(module, "reset_parameters"):
                module.reset_parameters()

    def forward(self, tokens):
        h = self.tok_embeddings(tokens) + self.pos_embeddings.weight[: tokens.shape[1]]
        for layer in self.layers:
            h = layer(h)
        return self.output(self.norm(h))
