import math

import torch

from .utils import update_out_and_lse


def block_attention(q, k, v, scale):
    """One ring step: attention of the local queries over one K/V block.

    q, k, v: (batch, seqlen, heads, head_dim). Returns the block output and its
    log-sum-exp with shape (batch, heads, seqlen), like flash-attention does.
    """
    scores = torch.einsum("bqhd,bkhd->bhqk", q, k) * scale
    block_lse = torch.logsumexp(scores, dim=-1)
    probs = torch.exp(scores - block_lse.unsqueeze(-1))
    block_out = torch.einsum("bhqk,bkhd->bqhd", probs, v)
    return block_out, block_lse


def ring_attention_forward(q, k_blocks, v_blocks, softmax_scale=None):
    """Emulates the ring: each step receives the next rank's K/V block."""
    scale = softmax_scale or 1.0 / math.sqrt(q.shape[-1])
    out, lse = None, None
    for k, v in zip(k_blocks, v_blocks):
        block_out, block_lse = block_attention(q, k, v, scale)
        out, lse = update_out_and_lse(out, lse, block_out, block_lse)
    return out.to(q.dtype), lse.squeeze(dim=-1).transpose(1, 2)
