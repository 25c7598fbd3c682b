import torch
import torch.distributed as dist
from torch.distributed.fsdp import fully_shard
from torch.distributed.tensor import DTensor


class Trainer:
    def __init__(self, model, mesh, device):
        for block in model.blocks:
            fully_shard(block, mesh=mesh)
        fully_shard(model, mesh=mesh)
        self.model = model
        self.device = device

    def compute_norms(self):
        local_weight_norms_sq = []
        local_grad_norms_sq = []
        for p in self.model.parameters():
            if p.requires_grad:
                weight = p.to_local() if isinstance(p, DTensor) else p
                local_weight_norms_sq.append(weight.detach().float().pow(2).sum().item())
                if p.grad is not None:
                    grad = p.grad.to_local() if isinstance(p.grad, DTensor) else p.grad
                    local_grad_norms_sq.append(grad.float().pow(2).sum().item())
        total_grad_norm_sq = torch.tensor(sum(local_grad_norms_sq), device=self.device)
        total_weight_norm_sq = torch.tensor(sum(local_weight_norms_sq), device=self.device)
        dist.all_reduce(total_grad_norm_sq)
        dist.all_reduce(total_weight_norm_sq)
        return total_grad_norm_sq.sqrt().item(), total_weight_norm_sq.sqrt().item()
