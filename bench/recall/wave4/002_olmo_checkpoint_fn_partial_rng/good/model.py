from functools import partial

import torch.nn as nn
from torch.utils.checkpoint import checkpoint


def activation_checkpoint_function():
    return partial(checkpoint, preserve_rng_state=True, use_reentrant=False)


class Block(nn.Module):
    def __init__(self, dim, dropout):
        super().__init__()
        self.attn_norm = nn.LayerNorm(dim)
        self.att_proj = nn.Linear(dim, dim)
        self.dropout = nn.Dropout(dropout)
        self._activation_checkpoint_fn = None

    def set_activation_checkpointing(self, enabled):
        self._activation_checkpoint_fn = activation_checkpoint_function() if enabled else None

    def _attend(self, x):
        return self.dropout(self.att_proj(self.attn_norm(x)))

    def forward(self, x):
        if self._activation_checkpoint_fn is not None:
            return x + self._activation_checkpoint_fn(self._attend, x)
        return x + self._attend(x)


class Model(nn.Module):
    def __init__(self, dim, depth, dropout=0.1):
        super().__init__()
        self.blocks = nn.ModuleList(Block(dim, dropout) for _ in range(depth))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
