import argparse
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torchvision.models as models
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def parse_args():
    parser = argparse.ArgumentParser(description="ImageNet-style training")
    parser.add_argument("--arch", default="resnet18")
    parser.add_argument("--epochs", type=int, default=90)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--output-dir", default="runs")
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--dist-url", default="tcp://127.0.0.1:23456")
    return parser.parse_args()


def checkpoint_path(args):
    return os.path.join(args.output_dir, "checkpoint.pth.tar")


def save_checkpoint(state, args):
    os.makedirs(args.output_dir, exist_ok=True)
    torch.save(state, checkpoint_path(args))


def resume(args, model, optimizer):
    path = checkpoint_path(args)
    if not os.path.isfile(path):
        return 0
    checkpoint = torch.load(path)  # expect: TCK215
    model.load_state_dict(checkpoint["state_dict"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    return checkpoint["epoch"]


def train_one_epoch(loader, model, criterion, optimizer, gpu):
    model.train()
    for images, target in loader:
        images = images.cuda(gpu, non_blocking=True)
        target = target.cuda(gpu, non_blocking=True)
        loss = criterion(model(images), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def main_worker(gpu, ngpus_per_node, args):
    dist.init_process_group("nccl", init_method=args.dist_url,
                            world_size=ngpus_per_node, rank=gpu)
    torch.cuda.set_device(gpu)
    model = models.__dict__[args.arch]().cuda(gpu)
    model = nn.parallel.DistributedDataParallel(model, device_ids=[gpu])
    criterion = nn.CrossEntropyLoss().cuda(gpu)
    optimizer = torch.optim.SGD(model.parameters(), args.lr, momentum=0.9, weight_decay=1e-4)

    start_epoch = resume(args, model, optimizer) if args.resume else 0

    dataset = TensorDataset(torch.randn(512, 3, 224, 224), torch.randint(0, 1000, (512,)))
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=args.batch_size // ngpus_per_node,
                        sampler=sampler, num_workers=4, pin_memory=True)

    for epoch in range(start_epoch, args.epochs):
        sampler.set_epoch(epoch)
        train_one_epoch(loader, model, criterion, optimizer, gpu)
        if gpu == 0:
            save_checkpoint({
                "epoch": epoch + 1,
                "arch": args.arch,
                "state_dict": model.state_dict(),
                "optimizer": optimizer.state_dict(),
            }, args)


def main():
    args = parse_args()
    ngpus_per_node = torch.cuda.device_count()
    mp.spawn(main_worker, nprocs=ngpus_per_node, args=(ngpus_per_node, args))


if __name__ == "__main__":
    main()
