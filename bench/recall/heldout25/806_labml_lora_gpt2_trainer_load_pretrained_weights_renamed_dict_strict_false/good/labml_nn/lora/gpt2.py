"""GPT-2 with LoRA adapters on the attention and feed-forward projections."""
import torch
import torch.nn as nn


class LoRALinear(nn.Module):
    def __init__(self, in_features, out_features, r, alpha=None, bias=True):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_features, in_features), requires_grad=False)
        self.bias = nn.Parameter(torch.empty(out_features), requires_grad=False) if bias else None
        self.scaling = (alpha or r) / r
        self.lora_a = nn.Parameter(torch.randn(r, in_features) * 0.01)
        self.lora_b = nn.Parameter(torch.zeros(out_features, r))

    def forward(self, x):
        out = nn.functional.linear(x, self.weight, self.bias)
        return out + (x @ self.lora_a.T @ self.lora_b.T) * self.scaling


class FFN(nn.Module):
    def __init__(self, d_model, d_ff, r):
        super().__init__()
        self.linear_in = LoRALinear(d_model, d_ff, r)
        self.linear_out = LoRALinear(d_ff, d_model, r)
        self.act = nn.GELU()

    def forward(self, x):
        return self.linear_out(self.act(self.linear_in(x)))


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_heads, r):
        super().__init__()
        self.n_heads = n_heads
        self.qkv_projection = LoRALinear(d_model, 3 * d_model, r)
        self.output_projection = LoRALinear(d_model, d_model, r)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv_projection(x).split(c, dim=-1)
        q, k, v = (z.reshape(b, t, self.n_heads, -1).transpose(1, 2) for z in (q, k, v))
        y = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.output_projection(y.transpose(1, 2).reshape(b, t, c))


class Block(nn.Module):
    def __init__(self, d_model, n_heads, layer_norm_epsilon, r):
        super().__init__()
        self.pre_norm = nn.LayerNorm(d_model, eps=layer_norm_epsilon)
        self.attn = MultiHeadAttention(d_model, n_heads, r)
        self.post_norm = nn.LayerNorm(d_model, eps=layer_norm_epsilon)
        self.ffn = FFN(d_model, 4 * d_model, r)

    def forward(self, x):
        x = x + self.attn(self.pre_norm(x))
        return x + self.ffn(self.post_norm(x))


class GPTModel(nn.Module):
    def __init__(self, layer_norm_epsilon, d_model, n_layers, n_heads, n_positions, vocab_size, r):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.position_embedding = nn.Embedding(n_positions, d_model)
        self.blocks = nn.ModuleList([Block(d_model, n_heads, layer_norm_epsilon, r) for _ in range(n_layers)])
        self.final_norm = nn.LayerNorm(d_model, eps=layer_norm_epsilon)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)

    def forward(self, input_ids):
        pos = torch.arange(input_ids.shape[1], device=input_ids.device)
        x = self.token_embedding(input_ids) + self.position_embedding(pos)
        for block in self.blocks:
            x = block(x)
        return self.lm_head(self.final_norm(x))
