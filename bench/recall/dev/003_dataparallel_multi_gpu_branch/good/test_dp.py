import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.alpha = nn.ParameterList()
        for i in range(4):
            self.alpha.append(nn.Parameter(1e-3 * torch.randn(i + 2, 5)))
        self.cnn = nn.Conv2d(1, 1, 1, 1, 1)

    def forward(self, x):
        return x * sum(a.sum() for a in self.alpha)


if __name__ == "__main__":
    # launched with: torchrun --nproc_per_node=NUM_GPUS test_dp.py
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    net = DistributedDataParallel(Net().to(local_rank), device_ids=[local_rank])
    print(net(torch.rand(4, 5, device=local_rank)))
