import os
from datetime import timedelta

import torch
import torch.distributed as dist
from torch.distributed.fsdp import fully_shard


class DummyModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.param = torch.nn.Parameter(torch.ones(8))

    def forward(self, x):
        return self.param * x


rank = int(os.environ["RANK"])
device = torch.device("cuda", rank)
torch.set_default_device(device)
torch.cuda.set_device(rank)
dist.init_process_group(backend="nccl", timeout=timedelta(seconds=5), device_id=device)

model = DummyModel()
fully_shard(model)
warmup = model(torch.ones(8)).sum()
optim = torch.optim.SGD(model.parameters(), lr=0.1)  # expect: TCK211
loss = model(torch.ones(8)).sum()
loss.backward()
optim.step()
print("FSDP2", model.param)
dist.destroy_process_group()
