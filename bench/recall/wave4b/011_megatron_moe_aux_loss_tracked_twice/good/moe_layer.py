import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

_MOE_LAYER_WISE_LOGGING_TRACKER = {}


def clear_aux_losses_tracker():
    for name in _MOE_LAYER_WISE_LOGGING_TRACKER:
        _MOE_LAYER_WISE_LOGGING_TRACKER[name].zero_()


def save_to_aux_losses_tracker(name, loss, layer_number, num_layers):
    if name not in _MOE_LAYER_WISE_LOGGING_TRACKER:
        _MOE_LAYER_WISE_LOGGING_TRACKER[name] = torch.zeros(num_layers, device=loss.device)
    _MOE_LAYER_WISE_LOGGING_TRACKER[name][layer_number - 1] += loss.detach()


class TopKRouter(nn.Module):
    def __init__(self, hidden_size, num_experts, top_k, layer_number, num_layers, aux_loss_coeff):
        super().__init__()
        self.gate = nn.Linear(hidden_size, num_experts, bias=False)
        self.num_experts = num_experts
        self.top_k = top_k
        self.layer_number = layer_number
        self.num_layers = num_layers
        self.aux_loss_coeff = aux_loss_coeff

    def load_balancing_loss(self, probs, indices):
        tokens_per_expert = torch.bincount(indices.flatten(), minlength=self.num_experts).float()
        aux_loss = self.aux_loss_coeff * self.num_experts * (probs.mean(0) * tokens_per_expert / indices.numel()).sum()
        return aux_loss

    def forward(self, hidden):
        probs = self.gate(hidden).softmax(dim=-1)
        weights, indices = torch.topk(probs, self.top_k, dim=-1)
        return weights, indices, self.load_balancing_loss(probs, indices)


class MoELayer(nn.Module):
    def __init__(self, hidden_size, num_experts, top_k, layer_number, num_layers, aux_loss_coeff, moe_layer_recompute):
        super().__init__()
        self.router = TopKRouter(hidden_size, num_experts, top_k, layer_number, num_layers, aux_loss_coeff)
        self.experts = nn.ModuleList(nn.Linear(hidden_size, hidden_size) for _ in range(num_experts))
        self.moe_layer_recompute = moe_layer_recompute

    def _forward_impl(self, hidden):
        weights, indices, aux_loss = self.router(hidden)
        out = torch.zeros_like(hidden)
        for k in range(self.router.top_k):
            for e, expert in enumerate(self.experts):
                out = out + (indices[:, k] == e).unsqueeze(-1) * weights[:, k : k + 1] * expert(hidden)
        return out, aux_loss

    def forward(self, hidden):
        if self.moe_layer_recompute:
            out, aux_loss = checkpoint(self._forward_impl, hidden, use_reentrant=False)
        else:
            out, aux_loss = self._forward_impl(hidden)
        save_to_aux_losses_tracker("load_balancing_loss", aux_loss, self.router.layer_number, self.router.num_layers)
        return out, aux_loss
