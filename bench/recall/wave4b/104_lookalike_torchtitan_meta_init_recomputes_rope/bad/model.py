import torch
from torch import nn


def precompute_freqs_cis(dim, end, theta=10000.0):
    freqs = 1.0 / theta ** (torch.arange(0, dim, 2).float() / dim)
    t = torch.arange(end, dtype=torch.float32)
    return torch.polar(torch.ones(end, dim // 2), torch.outer(t, freqs))


class RotaryEmbedding(nn.Module):
    def __init__(self, head_dim, max_seq_len):
        super().__init__()
        self.head_dim = head_dim
        self.max_seq_len = max_seq_len
        self.register_buffer("freqs_cis", precompute_freqs_cis(head_dim, max_seq_len), persistent=False)

    def reset_parameters(self):
        with torch.device(self.freqs_cis.device):
            self.freqs_cis = precompute_freqs_cis(self.head_dim, self.max_seq_len)


class Transformer(nn.Module):
    def __init__(self, vocab_size, dim, n_heads, n_layers, max_seq_len):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab_size, dim)
        self.rope = RotaryEmbedding(dim // n_heads, max_seq_len)
        self.layers = nn.ModuleList(nn.Linear(dim, dim) for _ in range(n_layers))
        self.output = nn.Linear(dim, vocab_size, bias=False)

    def init_weights(self):
        self.rope.reset_parameters()
        nn.init.normal_(self.tok_embeddings.weight)
        for layer in self.layers:
            layer.reset_parameters()
        nn.init.trunc_normal_(self.output.weight, std=0.02)
