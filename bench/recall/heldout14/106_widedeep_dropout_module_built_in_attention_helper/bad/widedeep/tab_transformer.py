import torch
import torch.nn as nn

from .attention_layers import TransformerEncoder


class TabTransformer(nn.Module):
    def __init__(self, cardinalities, n_continuous, input_dim=32, n_heads=8, n_blocks=4,
                 attn_dropout=0.2, ff_dropout=0.1, n_classes=2):
        super().__init__()
        self.embeddings = nn.ModuleList([nn.Embedding(c + 1, input_dim) for c in cardinalities])
        self.blocks = nn.Sequential(*[
            TransformerEncoder(input_dim, n_heads, False, attn_dropout, ff_dropout) for _ in range(n_blocks)
        ])
        self.cont_norm = nn.LayerNorm(n_continuous)
        self.head = nn.Sequential(
            nn.Linear(input_dim * len(cardinalities) + n_continuous, 64), nn.ReLU(), nn.Linear(64, n_classes)
        )

    def forward(self, x_cat, x_cont):
        tokens = torch.stack([emb(x_cat[:, i]) for i, emb in enumerate(self.embeddings)], dim=1)
        tokens = self.blocks(tokens)
        return self.head(torch.cat([tokens.flatten(1), self.cont_norm(x_cont)], dim=1))
