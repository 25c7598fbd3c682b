from functools import partial

import torch
from torch import nn
from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper as ptd_checkpoint_wrapper
from torch.utils.checkpoint import CheckpointPolicy, create_selective_checkpoint_contexts


class TransformerBlock(nn.Module):
    def __init__(self, dim, n_heads, dropout):
        super().__init__()
        self.attention_norm = nn.LayerNorm(dim)
        self.attention = nn.MultiheadAttention(dim, n_heads, dropout=dropout, batch_first=True)
        self.ffn_norm = nn.LayerNorm(dim)
        self.feed_forward = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        h = self.attention_norm(x)
        x = x + self.dropout(self.attention(h, h, h, need_weights=False)[0])
        return x + self.dropout(self.feed_forward(self.ffn_norm(x)))


class Transformer(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.tok_embeddings = nn.Embedding(args.vocab_size, args.dim)
        self.layers = nn.ModuleList(TransformerBlock(args.dim, args.n_heads, args.dropout) for _ in range(args.n_layers))
        self.output = nn.Linear(args.dim, args.vocab_size, bias=False)

    def forward(self, tokens):
        h = self.tok_embeddings(tokens)
        for layer in self.layers:
            h = layer(h)
        return self.output(h)


def _save_matmuls(ctx, op, *args, **kwargs):
    if op == torch.ops.aten.mm.default:
        return CheckpointPolicy.MUST_SAVE
    return CheckpointPolicy.PREFER_RECOMPUTE


def apply_activation_checkpointing(model: Transformer, mode: str):
    for i, block in enumerate(model.layers):
        if mode == "block":
            model.layers[i] = ptd_checkpoint_wrapper(block, preserve_rng_state=True)
        elif mode == "selective":
            model.layers[i] = ptd_checkpoint_wrapper(block, context_fn=partial(create_selective_checkpoint_contexts, _save_matmuls), preserve_rng_state=True)
    return model
