import torch
from torch import nn
from torch.nn import functional as F


def _cast_if_autocast_enabled(*args):
    if not torch.is_autocast_enabled():
        return args
    dtype = torch.get_autocast_dtype("cuda")
    return tuple(a.to(dtype) if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args)


class LayerNorm1P(nn.LayerNorm):
    """LayerNorm whose weight is stored zero-centred (the scale is weight + 1)."""

    def __init__(self, normalized_shape, eps=1e-5):
        super().__init__(normalized_shape, eps=eps)
        nn.init.zeros_(self.weight)

    def forward(self, x):
        args = _cast_if_autocast_enabled(x, self.normalized_shape, self.weight + 1, self.bias, self.eps)
        with torch.cuda.amp.autocast(enabled=False):  # expect: TCK301
            return F.layer_norm(*args)


class DecoderBlock(nn.Module):
    def __init__(self, d_model=256, n_heads=4):
        super().__init__()
        self.input_layernorm = LayerNorm1P(d_model)
        self.attn = nn.MultiheadAttention(d_model, n_heads, batch_first=True)
        self.post_attention_layernorm = LayerNorm1P(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.ReLU(), nn.Linear(4 * d_model, d_model))

    def forward(self, x, causal_mask):
        h = self.input_layernorm(x)
        h, _ = self.attn(h, h, h, attn_mask=causal_mask, need_weights=False)
        x = x + h
        return x + self.mlp(self.post_attention_layernorm(x))


class TinyNemo(nn.Module):
    def __init__(self, vocab=1000, d_model=256, n_layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.layers = nn.ModuleList([DecoderBlock(d_model) for _ in range(n_layers)])
        self.norm = LayerNorm1P(d_model)
        self.lm_head = nn.Linear(d_model, vocab, bias=False)

    def forward(self, input_ids):
        seq = input_ids.size(1)
        mask = torch.triu(torch.full((seq, seq), float("-inf"), device=input_ids.device), diagonal=1)
        x = self.embed(input_ids)
        for layer in self.layers:
            x = layer(x, mask)
        return self.lm_head(self.norm(x))
