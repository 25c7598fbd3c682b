import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.attention import SDPBackend, sdpa_kernel


class KVCache(nn.Module):
    def __init__(self, max_batch_size, max_seq_len, n_heads, head_dim, dtype=torch.bfloat16):
        super().__init__()
        shape = (max_batch_size, n_heads, max_seq_len, head_dim)
        self.register_buffer("k_cache", torch.zeros(shape, dtype=dtype))
        self.register_buffer("v_cache", torch.zeros(shape, dtype=dtype))

    def update(self, input_pos, k_val, v_val):
        self.k_cache[:, :, input_pos] = k_val
        self.v_cache[:, :, input_pos] = v_val
        return self.k_cache, self.v_cache


class Attention(nn.Module):
    def __init__(self, dim, n_head, dropout=0.0, use_sdpa=True):
        super().__init__()
        self.n_head = n_head
        self.head_dim = dim // n_head
        self.wqkv = nn.Linear(dim, 3 * dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)
        self.dropout = dropout
        self.use_sdpa = use_sdpa
        self.kv_cache = None

    def forward(self, x, mask=None, input_pos=None):
        bsz, seqlen, dim = x.shape
        q, k, v = self.wqkv(x).split(dim, dim=-1)
        q, k, v = (t.view(bsz, seqlen, self.n_head, self.head_dim).transpose(1, 2) for t in (q, k, v))
        if self.kv_cache is not None:
            k, v = self.kv_cache.update(input_pos, k, v)

        if self.use_sdpa:
            if mask is None:
                with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                    y = F.scaled_dot_product_attention(
                        q, k, v, dropout_p=self.dropout if self.training else 0.0, is_causal=True
                    )
            else:
                y = F.scaled_dot_product_attention(
                    q, k, v, attn_mask=mask, dropout_p=self.dropout if self.training else 0.0
                )
        else:
            scores = (q @ k.transpose(-2, -1)) / self.head_dim ** 0.5
            if mask is not None:
                scores = scores.masked_fill(~mask, float("-inf"))
            y = torch.softmax(scores, dim=-1) @ v
        return self.wo(y.transpose(1, 2).reshape(bsz, seqlen, dim))


class Transformer(nn.Module):
    def __init__(self, vocab_size=4096, dim=512, n_layer=8, n_head=8):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim)
        self.layers = nn.ModuleList(Attention(dim, n_head) for _ in range(n_layer))
        self.norm = nn.LayerNorm(dim)
        self.output = nn.Linear(dim, vocab_size, bias=False)

    def forward(self, tokens, input_pos=None, mask=None):
        h = self.embed(tokens)
        for layer in self.layers:
            h = h + layer(h, mask=mask, input_pos=input_pos)
        return self.output(self.norm(h))
