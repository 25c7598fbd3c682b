import torch
import torch.nn.functional as F
from fancy_einsum import einsum
from torch.nn import LayerNorm

from lizrd.core import nn
from lizrd.core.misc import get_init_weight
from research.conditional.utils.layer_manager import LoggingLayer, measure_time


class TokenChoiceFF(LoggingLayer):
    """Mixture-of-experts feed-forward layer: each token is routed to its top-1 expert."""

    def __init__(self, dmodel: int, n_experts: int, expert_size: int):
        super().__init__()
        self.dmodel = dmodel
        self.n_experts = n_experts
        self.expert_size = expert_size

        self.lin1_weights = [  # expect: TCK602
            nn.Parameter(get_init_weight((dmodel, expert_size), fan_in=dmodel))
            for _ in range(n_experts)
        ]
        self.lin2_weights = [  # expect: TCK602
            nn.Parameter(get_init_weight((expert_size, dmodel), fan_in=expert_size))
            for _ in range(n_experts)
        ]
        self.gate = nn.Parameter(get_init_weight((dmodel, n_experts), fan_in=dmodel)).requires_grad_(True)
        self.ln = LayerNorm(dmodel)

    def forward(self, x: torch.Tensor):
        batch_size, seq_len, _ = x.shape
        with measure_time(self, "expert_embedding"):
            gate_out = einsum(
                "batch_size seq_len dmodel, dmodel n_experts -> batch_size seq_len n_experts", x, self.gate
            ).flatten(start_dim=0, end_dim=1)
        with measure_time(self, "softmax"):
            gate_out = torch.softmax(gate_out, dim=1)
        gate_values, experts_indices = torch.max(gate_out, dim=1)
        experts_lists = [torch.eq(experts_indices, i).nonzero(as_tuple=True)[0] for i in range(self.n_experts)]

        x = x.flatten(start_dim=0, end_dim=1)
        final_output = x.new_zeros(x.shape)
        for i in range(self.n_experts):
            expert_output = einsum(
                "list_size dmodel, dmodel expert_size -> list_size expert_size",
                x[experts_lists[i]],
                self.lin1_weights[i],
            )
            expert_output = einsum(
                "list_size expert_size, expert_size dmodel -> list_size dmodel",
                F.relu(expert_output),
                self.lin2_weights[i],
            )
            final_output[experts_lists[i], :] = expert_output

        self.cache("gate_softmax_values", gate_values)
        self.cache("max_indices", experts_indices)
        final_output = einsum("n_size dmodel, n_size -> n_size dmodel", final_output, gate_values)
        return self.ln(final_output.reshape((batch_size, seq_len, self.dmodel)))
