from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class ModelArgs:
    vocab_size: int = 512
    dim: int = 128
    n_layer: int = 2
    n_head: int = 4
    block_size: int = 256


class Attention(nn.Module):
    def __init__(self, args: ModelArgs):
        super().__init__()
        self.n_head = args.n_head
        self.head_dim = args.dim // args.n_head
        self.wqkv = nn.Linear(args.dim, 3 * args.dim, bias=False)
        self.wo = nn.Linear(args.dim, args.dim, bias=False)
        self.register_buffer("k_cache", torch.zeros(1, args.n_head, args.block_size, self.head_dim), persistent=False)
        self.register_buffer("v_cache", torch.zeros(1, args.n_head, args.block_size, self.head_dim), persistent=False)

    def forward(self, x, input_pos, mask):
        bsz, seqlen, dim = x.shape
        q, k, v = self.wqkv(x).split(dim, dim=-1)
        q = q.reshape(bsz, seqlen, self.n_head, self.head_dim).transpose(1, 2)
        k = k.reshape(bsz, seqlen, self.n_head, self.head_dim).transpose(1, 2)
        v = v.reshape(bsz, seqlen, self.n_head, self.head_dim).transpose(1, 2)
        self.k_cache[:, :, input_pos] = k
        self.v_cache[:, :, input_pos] = v
        y = F.scaled_dot_product_attention(q, self.k_cache, self.v_cache, attn_mask=mask)
        return self.wo(y.transpose(1, 2).reshape(bsz, seqlen, dim))


class Block(nn.Module):
    def __init__(self, args: ModelArgs):
        super().__init__()
        self.attn = Attention(args)
        self.ffn = nn.Sequential(nn.Linear(args.dim, 4 * args.dim), nn.SiLU(), nn.Linear(4 * args.dim, args.dim))
        self.norm1 = nn.LayerNorm(args.dim)
        self.norm2 = nn.LayerNorm(args.dim)

    def forward(self, x, input_pos, mask):
        x = x + self.attn(self.norm1(x), input_pos, mask)
        return x + self.ffn(self.norm2(x))


class Transformer(nn.Module):
    def __init__(self, args: ModelArgs):
        super().__init__()
        self.args = args
        self.tok_embeddings = nn.Embedding(args.vocab_size, args.dim)
        self.layers = nn.ModuleList(Block(args) for _ in range(args.n_layer))
        self.norm = nn.LayerNorm(args.dim)
        self.output = nn.Linear(args.dim, args.vocab_size, bias=False)
        causal = torch.tril(torch.ones(args.block_size, args.block_size, dtype=torch.bool))
        self.register_buffer("causal_mask", causal, persistent=False)

    def forward(self, idx, input_pos):
        mask = self.causal_mask[None, None, input_pos]
        x = self.tok_embeddings(idx)
        for layer in self.layers:
            x = layer(x, input_pos, mask)
        return self.output(self.norm(x))
