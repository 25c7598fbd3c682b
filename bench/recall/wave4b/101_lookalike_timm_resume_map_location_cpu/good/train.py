import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from helpers import resume_checkpoint

CHECKPOINT = os.path.join("output", "last.pth.tar")


def main(loader, epochs, resume):
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 224 * 224, 1000)).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    start_epoch = resume_checkpoint(model, CHECKPOINT, optimizer) if resume else 0
    model = DistributedDataParallel(model, device_ids=[local_rank])
    for epoch in range(start_epoch, epochs):
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        if dist.get_rank() == 0:
            torch.save({"epoch": epoch + 1, "state_dict": model.module.state_dict(), "optimizer": optimizer.state_dict()}, CHECKPOINT)
