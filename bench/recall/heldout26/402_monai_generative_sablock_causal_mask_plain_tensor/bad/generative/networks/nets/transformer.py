from __future__ import annotations

import torch
import torch.nn as nn

from generative.networks.blocks.transformerblock import TransformerBlock


class DecoderOnlyTransformer(nn.Module):
    """Autoregressive transformer over VQ-VAE token sequences."""

    def __init__(self, num_tokens: int, max_seq_len: int, attn_layers_dim: int, attn_layers_depth: int,
                 attn_layers_heads: int, with_cross_attention: bool = False) -> None:
        super().__init__()
        self.max_seq_len = max_seq_len
        self.token_embeddings = nn.Embedding(num_tokens, attn_layers_dim)
        self.position_embeddings = nn.Embedding(max_seq_len, attn_layers_dim)
        self.blocks = nn.ModuleList(
            [
                TransformerBlock(
                    hidden_size=attn_layers_dim,
                    mlp_dim=attn_layers_dim * 4,
                    num_heads=attn_layers_heads,
                    dropout_rate=0.0,
                    qkv_bias=False,
                    causal=True,
                    sequence_length=max_seq_len,
                    with_cross_attention=with_cross_attention,
                )
                for _ in range(attn_layers_depth)
            ]
        )
        self.to_logits = nn.Linear(attn_layers_dim, num_tokens)

    def forward(self, x: torch.Tensor, context: torch.Tensor | None = None) -> torch.Tensor:
        positions = torch.arange(x.shape[1], device=x.device)
        h = self.token_embeddings(x) + self.position_embeddings(positions)
        for block in self.blocks:
            h = block(h, context=context)
        return self.to_logits(h)
