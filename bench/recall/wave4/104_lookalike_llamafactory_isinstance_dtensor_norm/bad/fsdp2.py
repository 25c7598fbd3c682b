import torch
from torch.distributed.fsdp import fully_shard
from torch.distributed.tensor import DTensor


class FSDP2Engine:
    def __init__(self, model, mesh):
        for layer in model.model.layers:
            fully_shard(layer, mesh=mesh)
        fully_shard(model, mesh=mesh)
        self.model = model

    def clip_grad_norm(self, max_norm, logger):
        grad_norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), max_norm)
        if isinstance(grad_norm, DTensor):
            grad_norm = grad_norm.full_tensor()
        logger.info(f"grad_norm: {grad_norm.item():.4f}")
        return grad_norm.item()
