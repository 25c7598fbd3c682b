import torch
from torch import einsum, nn
from torch.cuda.amp import autocast  # expect: TCK301


class RotaryEmbedding(nn.Module):
    def __init__(self, dim, base=10000):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer("inv_freq", inv_freq)

    def forward(self, seq_len):
        device = self.inv_freq.device
        t = torch.arange(seq_len, device=device).type_as(self.inv_freq)
        with autocast(enabled=False):
            freqs = einsum("i , j -> i j", t, self.inv_freq)
            freqs = torch.cat((freqs, freqs), dim=-1)
        return freqs
