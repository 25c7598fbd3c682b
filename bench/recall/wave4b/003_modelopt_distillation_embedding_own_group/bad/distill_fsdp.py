from torch import nn
from torch.distributed.fsdp import fully_shard


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.attn_proj = nn.Linear(dim, dim)
        self.mlp = nn.Linear(dim, dim)

    def forward(self, x):
        return x + self.mlp(self.attn_proj(x))


class Backbone(nn.Module):
    def __init__(self, vocab_size, dim, n_layers):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, dim)
        self.layers = nn.ModuleList(Block(dim) for _ in range(n_layers))

    def forward(self, input_ids):
        h = self.embed_tokens(input_ids)
        for layer in self.layers:
            h = layer(h)
        return h


class CausalLM(nn.Module):
    def __init__(self, vocab_size, dim, n_layers):
        super().__init__()
        self.model = Backbone(vocab_size, dim, n_layers)
        self.lm_head = nn.Linear(dim, vocab_size, bias=False)
        self.lm_head.weight = self.model.embed_tokens.weight

    def forward(self, input_ids):
        return self.lm_head(self.model(input_ids))


def shard_for_distillation(model: CausalLM, mesh) -> CausalLM:
    for layer in model.model.layers:
        fully_shard(layer, mesh=mesh)
    fully_shard(model.model.embed_tokens, mesh=mesh)
    fully_shard(model, mesh=mesh)  # expect: TCK212
    return model


def prepare(student: CausalLM, teacher: CausalLM, mesh):
    return shard_for_distillation(student, mesh), shard_for_distillation(teacher, mesh)
