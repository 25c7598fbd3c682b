"""Tiny real models shared by the checks tests: each bug next to its fix."""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

# ------------------------------------------------------------------ transformer


@dataclass(frozen=True)
class TransformerConfig:
    vocab: int = 32000
    width: int = 4096
    layers: int = 32
    heads: int = 32
    hidden: int = 11008


LLAMA_7B = TransformerConfig()
TINY = TransformerConfig(vocab=50, width=16, layers=2, heads=2, hidden=32)


class RMSNorm(nn.Module):
    def __init__(self, width: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(width))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight


class Attention(nn.Module):
    def __init__(self, config: TransformerConfig, head_split_bug: bool = False) -> None:
        super().__init__()
        self.heads = config.heads
        self.qkv = nn.Linear(config.width, 3 * config.width, bias=False)
        self.out = nn.Linear(config.width, config.width, bias=False)
        self.head_split_bug = head_split_bug

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, seq, width = x.shape
        head_dim = width // self.heads
        if self.head_split_bug:  # forgets the 3 in q, k, v
            head_dim = width // (self.heads - 1)
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (t.reshape(batch, seq, self.heads, head_dim).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out(y.transpose(1, 2).reshape(batch, seq, width))


class MLP(nn.Module):
    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        self.gate = nn.Linear(config.width, config.hidden, bias=False)
        self.up = nn.Linear(config.width, config.hidden, bias=False)
        self.down = nn.Linear(config.hidden, config.width, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(F.silu(self.gate(x)) * self.up(x))


class Block(nn.Module):
    def __init__(self, config: TransformerConfig, head_split_bug: bool = False) -> None:
        super().__init__()
        self.norm1 = RMSNorm(config.width)
        self.attn = Attention(config, head_split_bug)
        self.norm2 = RMSNorm(config.width)
        self.mlp = MLP(config)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class Transformer(nn.Module):
    """A Llama-shaped decoder; ``bug_in_block`` plants a head-split bug in one block."""

    def __init__(self, config: TransformerConfig = TINY, bug_in_block: int | None = None,
                 hard_coded_positions: bool = False) -> None:
        super().__init__()
        self.embed = nn.Embedding(config.vocab, config.width)
        self.blocks = nn.ModuleList(Block(config, i == bug_in_block) for i in range(config.layers))
        self.norm = RMSNorm(config.width)
        self.head = nn.Linear(config.width, config.vocab, bias=False)
        self.position = nn.Parameter(torch.zeros(config.width))
        self.hard_coded_positions = hard_coded_positions

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens)
        if self.hard_coded_positions:  # bug: ignores the device of the input
            x = x + torch.arange(tokens.shape[1], device="cpu", dtype=x.dtype)[:, None]
        x = x + self.position
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))
