import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

from metanet import MetaNet


def train(loader, epochs=10):
    dist.init_process_group("nccl")
    rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(rank)
    model = MetaNet().cuda(rank)
    model = DistributedDataParallel(model, device_ids=[rank], broadcast_buffers=False)
    optimizer = torch.optim.SGD(model.module.params(), lr=0.1)
    for epoch in range(epochs):
        for x, y in loader:
            x, y = x.cuda(), y.cuda()
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
