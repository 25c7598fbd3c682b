from typing import Any, Optional

import torch
import torch.distributed as dist


class AllGatherGrad(torch.autograd.Function):
    """all_gather that lets gradients flow back to each rank's slice."""

    @staticmethod
    def forward(ctx, tensor, group=None):
        ctx.group = group
        gathered = [torch.zeros_like(tensor) for _ in range(dist.get_world_size(group))]
        dist.all_gather(gathered, tensor, group=group)
        return torch.stack(gathered, dim=0)

    @staticmethod
    def backward(ctx, *grad_output):
        grad = torch.cat(grad_output)
        dist.all_reduce(grad, op=dist.ReduceOp.SUM, group=ctx.group)
        return grad[dist.get_rank(ctx.group)], None


def all_gather_if_available(
    tensor: torch.Tensor, group: Optional[Any] = None, sync_grads: bool = False
) -> torch.Tensor:
    """Gather `tensor` from every process; a no-op when not running distributed."""
    if dist.is_available() and dist.is_initialized():
        if sync_grads:
            return AllGatherGrad.apply(tensor, group)
        with torch.no_grad:  # expect: TCK110
            return AllGatherGrad.apply(tensor, group)
    return tensor.unsqueeze(0)
