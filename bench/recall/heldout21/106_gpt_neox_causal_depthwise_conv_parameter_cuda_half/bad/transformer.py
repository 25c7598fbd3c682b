import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def shift(x: torch.Tensor, amt: int, dim: int = -1):
    return F.pad(x, (*((0, 0) * (-dim - 1)), amt, -amt), value=0.0)


class CausalDepthwiseConv(torch.nn.Module):
    """Per-channel causal convolution over the sequence dimension, applied to the fused QKV projection."""

    def __init__(self, dim, init_method, kernel_size=3):
        super().__init__()
        self.kernel_size = kernel_size
        self.weight = torch.nn.Parameter(torch.empty(size=(kernel_size, dim))).cuda().half()  # expect: TCK108
        init_method(self.weight)

    def forward(self, x):
        # x: [b, s, h]
        ret = x * self.weight[0]
        for shift_distance in range(1, self.kernel_size):
            x = shift(x, 1, dim=-2)
            ret += x * self.weight[shift_distance]
        return ret


class ParallelSelfAttention(nn.Module):
    def __init__(self, neox_args, init_method, output_layer_init_method):
        super().__init__()
        self.hidden_size = neox_args.hidden_size
        self.num_heads = neox_args.num_attention_heads
        self.head_dim = self.hidden_size // self.num_heads
        self.query_key_value = nn.Linear(self.hidden_size, 3 * self.hidden_size)
        init_method(self.query_key_value.weight)
        if neox_args.qkv_conv:
            self.qkv_conv = CausalDepthwiseConv(3 * neox_args.hidden_size, kernel_size=3, init_method=init_method)
        else:
            self.qkv_conv = None
        self.dense = nn.Linear(self.hidden_size, self.hidden_size)
        output_layer_init_method(self.dense.weight)
        self.attention_dropout = nn.Dropout(neox_args.attention_dropout)

    def forward(self, hidden_states, attention_mask):
        # hidden_states: [s, b, h]
        mixed_x_layer = self.query_key_value(hidden_states)
        if self.qkv_conv is not None:
            mixed_x_layer = self.qkv_conv(mixed_x_layer.transpose(0, 1)).transpose(0, 1)
        s, b, _ = mixed_x_layer.shape
        q, k, v = mixed_x_layer.view(s, b, self.num_heads, 3 * self.head_dim).chunk(3, dim=-1)
        q, k, v = (t.permute(1, 2, 0, 3) for t in (q, k, v))
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim)
        scores = scores.masked_fill(attention_mask, -10000.0)
        probs = self.attention_dropout(scores.softmax(-1))
        context = (probs @ v).permute(2, 0, 1, 3).reshape(s, b, self.hidden_size)
        return self.dense(context)


class ParallelTransformerLayer(nn.Module):
    def __init__(self, neox_args, init_method, output_layer_init_method):
        super().__init__()
        self.input_layernorm = nn.LayerNorm(neox_args.hidden_size)
        self.attention = ParallelSelfAttention(neox_args, init_method, output_layer_init_method)
        self.post_attention_layernorm = nn.LayerNorm(neox_args.hidden_size)
        self.mlp = nn.Sequential(nn.Linear(neox_args.hidden_size, 4 * neox_args.hidden_size), nn.GELU(),
                                 nn.Linear(4 * neox_args.hidden_size, neox_args.hidden_size))

    def forward(self, x, attention_mask):
        x = x + self.attention(self.input_layernorm(x), attention_mask)
        return x + self.mlp(self.post_attention_layernorm(x))
