from torch import nn
from torch.distributed.fsdp import fully_shard


class LM(nn.Module):
    def __init__(self, vocab_size, dim, n_layers, tie_word_embeddings):
        super().__init__()
        self.tie_word_embeddings = tie_word_embeddings
        self.embed_tokens = nn.Embedding(vocab_size, dim)
        self.layers = nn.ModuleList(nn.Linear(dim, dim) for _ in range(n_layers))
        self.lm_head = nn.Linear(dim, vocab_size, bias=False)
        if tie_word_embeddings:
            self.lm_head.weight = self.embed_tokens.weight


def parallelize(model: LM, mesh):
    for layer in model.layers:
        fully_shard(layer, mesh=mesh)
    if not model.tie_word_embeddings:
        fully_shard(model.embed_tokens, mesh=mesh)
        fully_shard(model.lm_head, mesh=mesh)
    else:
        fully_shard([model.embed_tokens, model.lm_head], mesh=mesh)
    fully_shard(model, mesh=mesh)
    return model
