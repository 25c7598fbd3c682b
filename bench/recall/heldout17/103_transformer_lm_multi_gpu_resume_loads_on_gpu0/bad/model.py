from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class HParams:
    n_vocab: int
    n_ctx: int
    n_embed: int = 256
    n_head: int = 4
    n_layer: int = 4


class GPT2(nn.Module):
    def __init__(self, hparams: HParams):
        super().__init__()
        self.wte = nn.Embedding(hparams.n_vocab, hparams.n_embed)
        self.wpe = nn.Embedding(hparams.n_ctx, hparams.n_embed)
        layer = nn.TransformerEncoderLayer(hparams.n_embed, hparams.n_head, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, hparams.n_layer)
        self.ln_f = nn.LayerNorm(hparams.n_embed)
        self.head = nn.Linear(hparams.n_embed, hparams.n_vocab, bias=False)

    def forward(self, ctx):
        n = ctx.shape[1]
        pos = torch.arange(n, device=ctx.device)
        h = self.wte(ctx) + self.wpe(pos)[None]
        mask = nn.Transformer.generate_square_subsequent_mask(n, device=ctx.device)
        h = self.blocks(h, mask=mask, is_causal=True)
        return self.head(self.ln_f(h))
