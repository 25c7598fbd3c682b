import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

from sync_ops import AllGatherForwardReduceScatterBackward


class SequenceParallelMLP(nn.Module):
    def __init__(self, hidden, ffn, group=None):
        super().__init__()
        world_size = dist.get_world_size(group)
        self.group = group
        self.fc1 = nn.Linear(hidden, ffn // world_size)
        self.fc2 = nn.Linear(ffn // world_size, hidden)

    def forward(self, x):
        full = AllGatherForwardReduceScatterBackward.apply(x, 1, self.group)
        out = self.fc2(F.gelu(self.fc1(full)))
        dist.all_reduce(out, group=self.group)
        rank = dist.get_rank(self.group)
        chunk = x.size(1)
        return out[:, rank * chunk : (rank + 1) * chunk]


if __name__ == "__main__":
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    model = SequenceParallelMLP(1024, 4096).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for step in range(10):
        x = torch.randn(8, 128, 1024, device="cuda")
        loss = model(x).float().pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    dist.destroy_process_group()
