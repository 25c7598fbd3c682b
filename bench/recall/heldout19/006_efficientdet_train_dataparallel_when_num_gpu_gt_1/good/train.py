import argparse
import logging
import os

import torch
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from detector import TinyDetector

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=100)
parser.add_argument("--lr", type=float, default=0.08)
parser.add_argument("--local_rank", type=int, default=0)


def train_epoch(model, loader, optimizer, epoch):
    model.train()
    for step, (images, cls_t, box_t) in enumerate(loader):
        images, cls_t, box_t = images.cuda(), cls_t.cuda(), box_t.cuda()
        loss = model(images, cls_t, box_t).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 100 == 0:
            logging.info("epoch %d step %d loss %.4f", epoch, step, loss.item())


def main(dataset):
    # multi-GPU: launch one process per GPU (torchrun / distributed launch)
    args = parser.parse_args()
    args.distributed = int(os.environ.get("WORLD_SIZE", 1)) > 1
    if args.distributed:
        torch.cuda.set_device(args.local_rank)
        torch.distributed.init_process_group(backend="nccl")

    model = TinyDetector()
    model.cuda()

    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=4e-5)
    if args.distributed:
        model = DDP(model, device_ids=[args.local_rank])

    sampler = DistributedSampler(dataset) if args.distributed else None
    loader = DataLoader(dataset, batch_size=16, shuffle=sampler is None, sampler=sampler, drop_last=True)
    for epoch in range(args.epochs):
        if sampler is not None:
            sampler.set_epoch(epoch)
        train_epoch(model, loader, optimizer, epoch)
