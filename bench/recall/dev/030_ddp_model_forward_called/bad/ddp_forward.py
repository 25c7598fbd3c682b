import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

dist.init_process_group("nccl")
rank = dist.get_rank()
model = DistributedDataParallel(nn.Linear(16, 4).to(rank), device_ids=[rank])
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(10):
    optimizer.zero_grad()
    out = model.forward(torch.randn(8, 16, device=rank))  # expect: TCK105
    out.sum().backward()
    optimizer.step()
