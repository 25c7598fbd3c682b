import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard


class DecoderLayer(nn.Module):
    def __init__(self, dim, n_heads):
        super().__init__()
        self.input_layernorm = nn.RMSNorm(dim)
        self.self_attn = nn.MultiheadAttention(dim, n_heads, batch_first=True)
        self.post_attention_layernorm = nn.RMSNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim, bias=False), nn.SiLU(), nn.Linear(4 * dim, dim, bias=False))

    def forward(self, x, mask):
        h = self.input_layernorm(x)
        x = x + self.self_attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return x + self.mlp(self.post_attention_layernorm(x))


class TinyCausalLM(nn.Module):
    def __init__(self, vocab_size=32000, dim=512, n_layers=8, n_heads=8, tie_word_embeddings=True):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, dim)
        self.layers = nn.ModuleList(DecoderLayer(dim, n_heads) for _ in range(n_layers))
        self.norm = nn.RMSNorm(dim)
        self.lm_head = nn.Linear(dim, vocab_size, bias=False)
        if tie_word_embeddings:
            self.lm_head.weight = self.embed_tokens.weight

    def forward(self, input_ids):
        seq = input_ids.shape[1]
        mask = torch.triu(torch.full((seq, seq), float("-inf"), device=input_ids.device), diagonal=1)
        x = self.embed_tokens(input_ids)
        for layer in self.layers:
            x = layer(x, mask)
        return self.lm_head(self.norm(x))


def fsdp2_prepare_model(model, mesh):
    mp_policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    for layer in model.layers:
        fully_shard(layer, mesh=mesh, mp_policy=mp_policy)
    # tail group: the final norm and the input embedding are gathered together
    fully_shard([model.norm, model.embed_tokens], mesh=mesh, mp_policy=mp_policy, reshard_after_forward=False)
    fully_shard(model, mesh=mesh, mp_policy=mp_policy)  # expect: TCK212
    return model


def main(steps=100):
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    mesh = init_device_mesh("cuda", (dist.get_world_size(),))

    model = TinyCausalLM().cuda()
    model = fsdp2_prepare_model(model, mesh)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    for step in range(steps):
        tokens = torch.randint(0, 32000, (4, 257), device="cuda")
        logits = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.flatten(0, 1).float(), tokens[:, 1:].flatten())
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
