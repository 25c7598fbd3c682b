import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from resnet import PreActResNet


def main(train_loader, epochs):
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    net = PreActResNet(depth=1001).cuda(local_rank)
    net = DistributedDataParallel(net, device_ids=[local_rank])
    criterion = nn.CrossEntropyLoss().cuda()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    for epoch in range(epochs):
        net.train()
        for input, target in train_loader:
            input = input.cuda(non_blocking=True)
            target = target.cuda(non_blocking=True)
            output = net(input)
            loss = criterion(output, target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
