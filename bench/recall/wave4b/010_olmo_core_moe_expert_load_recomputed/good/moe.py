import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class MoERouter(nn.Module):
    def __init__(self, d_model, num_experts, top_k):
        super().__init__()
        self.weight = nn.Linear(d_model, num_experts, bias=False)
        self.num_experts = num_experts
        self.top_k = top_k
        self.register_buffer("batch_size_per_expert", torch.zeros(num_experts), persistent=False)

    def reset_metrics(self):
        self.batch_size_per_expert.zero_()

    def forward(self, x):
        scores = self.weight(x).softmax(dim=-1)
        expert_weights, expert_indices = torch.topk(scores, self.top_k, dim=-1)
        counts = torch.bincount(expert_indices.flatten(), minlength=self.num_experts)
        return expert_weights, expert_indices, counts.detach().float()


class MoEBlock(nn.Module):
    def __init__(self, d_model, num_experts, top_k):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.router = MoERouter(d_model, num_experts, top_k)
        self.experts = nn.ModuleList(nn.Linear(d_model, d_model) for _ in range(num_experts))

    def forward(self, x):
        h = self.norm(x)
        weights, indices, counts = self.router(h)
        out = torch.zeros_like(h)
        for k in range(indices.size(-1)):
            for e, expert in enumerate(self.experts):
                mask = (indices[..., k] == e).unsqueeze(-1)
                out = out + mask * weights[..., k : k + 1] * expert(h)
        return x + out, counts


class MoETransformer(nn.Module):
    def __init__(self, d_model, n_layers, num_experts, top_k, activation_checkpointing):
        super().__init__()
        self.blocks = nn.ModuleList(MoEBlock(d_model, num_experts, top_k) for _ in range(n_layers))
        self.activation_checkpointing = activation_checkpointing

    def forward(self, x):
        for block in self.blocks:
            if self.activation_checkpointing:
                x, counts = checkpoint(block, x, use_reentrant=False)
            else:
                x, counts = block(x)
            block.router.batch_size_per_expert += counts
        return x
