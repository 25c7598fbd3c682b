from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F


@dataclass
class EncoderConfig:
    vocab_size: int = 8000
    hidden_size: int = 256
    num_heads: int = 8
    num_layers: int = 4
    attention_dropout: float = 0.1
    hidden_dropout: float = 0.1


class SelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.head_dim = config.hidden_size // config.num_heads
        self.qkv = nn.Linear(config.hidden_size, 3 * config.hidden_size)
        self.out = nn.Linear(config.hidden_size, config.hidden_size)

    def forward(self, x, padding_mask):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.config.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        mask = padding_mask[:, None, None, :]
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=self.config.attention_dropout)  # expect: TCK604
        return self.out(y.transpose(1, 2).reshape(b, t, d))


class EncoderBlock(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.norm1 = nn.LayerNorm(config.hidden_size)
        self.attn = SelfAttention(config)
        self.norm2 = nn.LayerNorm(config.hidden_size)
        self.mlp = nn.Sequential(
            nn.Linear(config.hidden_size, 4 * config.hidden_size),
            nn.GELU(),
            nn.Linear(4 * config.hidden_size, config.hidden_size),
            nn.Dropout(config.hidden_dropout),
        )

    def forward(self, x, padding_mask):
        x = x + self.attn(self.norm1(x), padding_mask)
        return x + self.mlp(self.norm2(x))


class TextEncoder(nn.Module):
    def __init__(self, config, num_labels=3):
        super().__init__()
        self.embed = nn.Embedding(config.vocab_size, config.hidden_size)
        self.blocks = nn.ModuleList([EncoderBlock(config) for _ in range(config.num_layers)])
        self.norm = nn.LayerNorm(config.hidden_size)
        self.head = nn.Linear(config.hidden_size, num_labels)

    def forward(self, input_ids, padding_mask):
        x = self.embed(input_ids)
        for block in self.blocks:
            x = block(x, padding_mask)
        return self.head(self.norm(x)[:, 0])
