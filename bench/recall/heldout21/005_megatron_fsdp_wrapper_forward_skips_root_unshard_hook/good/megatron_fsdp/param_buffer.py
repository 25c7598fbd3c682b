import torch
import torch.distributed as dist


class ShardedParamBuffer:
    """Keeps one flat shard of every parameter per rank and gathers it on demand."""

    def __init__(self, params, group=None):
        self.params = list(params)
        self.group = group
        self.world = dist.get_world_size(group) if dist.is_initialized() else 1
        self.rank = dist.get_rank(group) if dist.is_initialized() else 0
        self.full = [p.detach().clone() for p in self.params]
        self.shards = [f.flatten().chunk(self.world)[self.rank].clone() for f in self.full]
        self.gathered = False

    def release(self):
        for p in self.params:
            p.data = torch.empty(0, device=p.device, dtype=p.dtype)
        self.gathered = False

    def all_gather(self):
        if self.gathered:
            return
        for p, full, shard in zip(self.params, self.full, self.shards):
            pieces = [torch.empty_like(shard) for _ in range(self.world)]
            if self.world > 1:
                dist.all_gather(pieces, shard, group=self.group)
            else:
                pieces = [shard]
            p.data = torch.cat(pieces)[: full.numel()].view_as(full)
        self.gathered = True
