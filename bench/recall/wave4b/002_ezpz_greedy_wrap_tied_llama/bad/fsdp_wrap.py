import torch
from torch import nn
from torch.distributed.fsdp import fully_shard


class DecoderLayer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        return x + self.mlp(self.norm(x))


class TinyLlama(nn.Module):
    def __init__(self, vocab_size, dim, n_layers, tie_word_embeddings=True):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, dim)
        self.layers = nn.ModuleList(DecoderLayer(dim) for _ in range(n_layers))
        self.norm = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab_size, bias=False)
        if tie_word_embeddings:
            self.lm_head.weight = self.embed_tokens.weight

    def forward(self, input_ids):
        h = self.embed_tokens(input_ids)
        for layer in self.layers:
            h = layer(h)
        return self.lm_head(self.norm(h))


def wrap_greedy(model: TinyLlama, mesh):
    for layer in model.layers:
        fully_shard(layer, mesh=mesh)
    fully_shard(model.embed_tokens, mesh=mesh)
    fully_shard(model.lm_head, mesh=mesh)  # expect: TCK212
    fully_shard(model, mesh=mesh)
    return model
