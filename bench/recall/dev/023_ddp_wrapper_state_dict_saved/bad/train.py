import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from model import Net


def run(rank, resume):
    dist.init_process_group("nccl")
    model = Net().to(rank)
    if resume:
        state = torch.load("ddp.pt", map_location=f"cuda:{rank}", weights_only=True)
        model.load_state_dict(state)
    ddp_model = DDP(model, device_ids=[rank])
    optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.01)
    for step in range(100):
        optimizer.zero_grad()
        ddp_model(torch.randn(20, 10, device=rank)).sum().backward()
        optimizer.step()
    if rank == 0:
        torch.save(ddp_model.state_dict(), "ddp.pt")  # expect: TCK209
    dist.barrier()
