import torch
import torch.nn as nn
from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper


class MoE(nn.Module):
    def __init__(self, dim, num_experts, top_k):
        super().__init__()
        self.top_k = top_k
        self.router = nn.Linear(dim, num_experts, bias=False)
        self.experts = nn.ModuleList(nn.Linear(dim, dim) for _ in range(num_experts))
        self.register_buffer("tokens_per_expert", torch.zeros(num_experts), persistent=False)
        self.last_counts = None

    def forward(self, x):
        scores = self.router(x).softmax(-1)
        top_scores, selected = scores.topk(self.top_k, dim=-1)
        # a plain overwrite: the recompute writes the same counts again
        self.last_counts = torch.bincount(selected.flatten(), minlength=len(self.experts))
        out = torch.zeros_like(x)
        for k in range(self.top_k):
            for e, expert in enumerate(self.experts):
                mask = (selected[..., k] == e).unsqueeze(-1)
                out = out + mask * top_scores[..., k : k + 1] * expert(x)
        return out


class TransformerBlock(nn.Module):
    def __init__(self, dim, num_experts, top_k):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.moe = MoE(dim, num_experts, top_k)

    def forward(self, x):
        return x + self.moe(self.norm(x))


class Model(nn.Module):
    def __init__(self, dim, depth, num_experts=8, top_k=2):
        super().__init__()
        self.layers = nn.ModuleList(TransformerBlock(dim, num_experts, top_k) for _ in range(depth))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    @torch.no_grad()
    def record_expert_usage(self):
        # called once per step, after backward
        for layer in self.layers:
            moe = layer.moe if hasattr(layer, "moe") else layer._checkpoint_wrapped_module.moe
            moe.tokens_per_expert.add_(moe.last_counts)


def apply_full_ac(model):
    for i, block in enumerate(model.layers):
        model.layers[i] = checkpoint_wrapper(block, preserve_rng_state=False)
