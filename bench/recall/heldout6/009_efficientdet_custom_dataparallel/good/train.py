import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def train(model, params, opt, training_generator):
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    if params.num_gpus > 0:
        torch.cuda.set_device(local_rank)
        model = model.cuda()
        if params.num_gpus > 1:
            dist.init_process_group("nccl")
            model = DistributedDataParallel(model, device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), opt.lr)
    for epoch in range(opt.num_epochs):
        for data in training_generator:
            imgs, annot = data["img"], data["annot"]
            optimizer.zero_grad()
            cls_loss, reg_loss = model(imgs, annot)
            loss = cls_loss.mean() + reg_loss.mean()
            loss.backward()
            optimizer.step()
