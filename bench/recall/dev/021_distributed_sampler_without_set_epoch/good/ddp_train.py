import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

dist.init_process_group("nccl")
rank = dist.get_rank()
dataset = TensorDataset(torch.randn(1024, 16), torch.randint(0, 2, (1024,)))
sampler = DistributedSampler(dataset)
loader = DataLoader(dataset, batch_size=32, sampler=sampler)
model = DDP(torch.nn.Linear(16, 2).to(rank), device_ids=[rank])
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = torch.nn.CrossEntropyLoss()

for epoch in range(10):
    sampler.set_epoch(epoch)
    for x, y in loader:
        x, y = x.to(rank), y.to(rank)
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
