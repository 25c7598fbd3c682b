import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    model = DDP(torch.nn.Linear(10, 10).to(rank), device_ids=[rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(100):
        optimizer.zero_grad()
        model(torch.randn(20, 10, device=rank)).sum().backward()
        optimizer.step()
    if rank == 0:
        torch.save(model.module.state_dict(), "checkpoint.pt")
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
