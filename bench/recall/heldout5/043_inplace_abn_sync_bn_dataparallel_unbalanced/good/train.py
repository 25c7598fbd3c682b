import os

import torch
import torch.distributed as dist
import torch.nn as nn
from inplace_abn import InPlaceABNSync
from torch.nn.parallel import DistributedDataParallel

from models import DeepLabV3


def main(args, train_loader, train_sampler):
    dist.init_process_group(backend="nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    model = DeepLabV3(num_classes=args.num_classes, norm_act=InPlaceABNSync).cuda(local_rank)
    model = DistributedDataParallel(model, device_ids=[local_rank], output_device=local_rank)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    criterion = nn.CrossEntropyLoss(ignore_index=255)
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        model.train()
        for images, labels in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(images.cuda(local_rank)), labels.cuda(local_rank))
            loss.backward()
            optimizer.step()
