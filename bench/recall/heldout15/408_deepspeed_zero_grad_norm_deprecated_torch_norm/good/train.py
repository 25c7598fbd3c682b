import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

from sharded_optimizer import ShardedGradOptimizer


def main():
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    model = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024)).cuda()
    model = DDP(model, device_ids=[local_rank])
    optimizer = ShardedGradOptimizer(torch.optim.Adam(model.parameters(), lr=1e-4), clip_grad=1.0,
                                     compress_momentum=True)
    for step in range(1000):
        x = torch.randn(16, 1024, device="cuda")
        loss = (model(x) - x).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        grad_norm, _ = optimizer.step()
        if step % 100 == 0 and dist.get_rank() == 0:
            print(f"step {step} loss {loss.item():.4f} grad norm {grad_norm.item():.3f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
