from torch import nn
from torch.distributed.fsdp import fully_shard


def prepare_fully_shard(model: nn.Module, mesh) -> None:
    for block in model.blocks:
        fully_shard(block, mesh=mesh, reshard_after_forward=True)
    fully_shard(model, mesh=mesh)
