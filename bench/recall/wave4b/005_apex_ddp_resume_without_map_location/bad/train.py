import argparse
import os

import torch
import torch.distributed as dist
from apex.parallel import DistributedDataParallel as DDP

from model import Net


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=0)
    parser.add_argument("--out-dir", default="runs")
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--epochs", type=int, default=90)
    args = parser.parse_args()

    torch.cuda.set_device(args.local_rank)
    dist.init_process_group(backend="nccl", init_method="env://")
    ckpt_file = os.path.join(args.out_dir, "checkpoint.pth.tar")

    model = Net().cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    start_epoch = 0
    if args.resume and os.path.isfile(ckpt_file):
        checkpoint = torch.load(ckpt_file)  # expect: TCK215
        model.load_state_dict(checkpoint["state_dict"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        start_epoch = checkpoint["epoch"]
    model = DDP(model)

    for epoch in range(start_epoch, args.epochs):
        train_one_epoch(model, optimizer, epoch)
        if dist.get_rank() == 0:
            torch.save({"epoch": epoch + 1, "state_dict": model.module.state_dict(), "optimizer": optimizer.state_dict()}, ckpt_file)


def train_one_epoch(model, optimizer, epoch):
    ...


if __name__ == "__main__":
    main()
