import torch
import torch.nn as nn
import torch.nn.functional as F

from attention import AttentionMHA


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class FeedForward(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class TransformerBlock(nn.Module):
    def __init__(self, dim, n_heads, max_seq_len):
        super().__init__()
        self.attention = AttentionMHA(dim, n_heads, max_seq_len)
        self.feed_forward = FeedForward(dim, 4 * dim)
        self.attention_norm = RMSNorm(dim)
        self.ffn_norm = RMSNorm(dim)

    def forward(self, x, freqs_cos, freqs_sin, input_pos=None):
        h = self.attention.forward(self.attention_norm(x), freqs_cos, freqs_sin, input_pos)  # expect: TCK105
        h = x + h
        return h + self.feed_forward(self.ffn_norm(h))


class Transformer(nn.Module):
    def __init__(self, vocab_size=256, dim=64, n_heads=4, n_layers=2, max_seq_len=128):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab_size, dim)
        self.layers = nn.ModuleList(TransformerBlock(dim, n_heads, max_seq_len) for _ in range(n_layers))
        self.norm = RMSNorm(dim)
        self.output = nn.Linear(dim, vocab_size, bias=False)
        self.register_buffer("freqs_cos", torch.ones(max_seq_len, dim // n_heads // 2), persistent=False)
        self.register_buffer("freqs_sin", torch.zeros(max_seq_len, dim // n_heads // 2), persistent=False)

    def forward(self, tokens):
        h = self.tok_embeddings(tokens)
        seqlen = tokens.shape[1]
        for layer in self.layers:
            h = layer(h, self.freqs_cos[:seqlen], self.freqs_sin[:seqlen])
        return self.output(self.norm(h))


if __name__ == "__main__":
    model = Transformer()
    # a profiling hook on every attention module: it never fires with the call above
    for block in model.layers:
        block.attention.register_forward_hook(lambda mod, inp, out: print(type(mod).__name__, out.shape))
    logits = model(torch.randint(0, 256, (2, 16)))
    print(logits.shape)
