import torch
from torch.distributed.fsdp import fully_shard
from torch.distributed.tensor import DTensor


def shard(model, mesh):
    for block in model.blocks:
        fully_shard(block, mesh=mesh)
    fully_shard(model, mesh=mesh)
    return model


def clip_and_get_grad_norm(model, max_norm):
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    total_norm = torch.nn.utils.get_total_norm(grads, norm_type=2.0)
    if isinstance(total_norm, DTensor):
        total_norm = total_norm.full_tensor()
    torch.nn.utils.clip_grads_with_norm_(model.parameters(), max_norm, total_norm)
    return total_norm.item()
