import argparse
import os
import random
import warnings

import torch
import torch.backends.cudnn as cudnn
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torchvision.datasets as datasets
import torchvision.models as models
import torchvision.transforms as transforms

parser = argparse.ArgumentParser(description="ImageNet training")
parser.add_argument("data")
parser.add_argument("--arch", default="resnet18")
parser.add_argument("--epochs", default=90, type=int)
parser.add_argument("--batch-size", default=256, type=int)
parser.add_argument("--lr", default=0.1, type=float)
parser.add_argument("--workers", default=4, type=int)
parser.add_argument("--seed", default=None, type=int)
parser.add_argument("--dist-url", default="tcp://127.0.0.1:23456")
parser.add_argument("--multiprocessing-distributed", action="store_true")


def main():
    args = parser.parse_args()
    if args.seed is not None:
        random.seed(args.seed)
        torch.manual_seed(args.seed)
        cudnn.deterministic = True
        warnings.warn("You have chosen to seed training. This turns on the CUDNN deterministic "
                      "setting, which can slow down your training considerably!")
    ngpus_per_node = torch.cuda.device_count()
    if args.multiprocessing_distributed:
        mp.spawn(main_worker, nprocs=ngpus_per_node, args=(ngpus_per_node, args))
    else:
        main_worker(0, ngpus_per_node, args)


def main_worker(gpu, ngpus_per_node, args):
    if args.multiprocessing_distributed:
        dist.init_process_group("nccl", init_method=args.dist_url, world_size=ngpus_per_node, rank=gpu)
    torch.cuda.set_device(gpu)
    model = models.__dict__[args.arch]().cuda(gpu)
    if args.multiprocessing_distributed:
        model = nn.parallel.DistributedDataParallel(model, device_ids=[gpu])
    criterion = nn.CrossEntropyLoss().cuda(gpu)
    optimizer = torch.optim.SGD(model.parameters(), args.lr, momentum=0.9, weight_decay=1e-4)

    cudnn.benchmark = True  # expect: TCK501

    normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    train_dataset = datasets.ImageFolder(os.path.join(args.data, "train"), transforms.Compose([
        transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(),
        transforms.ToTensor(), normalize]))
    sampler = (torch.utils.data.distributed.DistributedSampler(train_dataset)
               if args.multiprocessing_distributed else None)
    loader = torch.utils.data.DataLoader(train_dataset, batch_size=args.batch_size,
                                         shuffle=(sampler is None), num_workers=args.workers,
                                         pin_memory=True, sampler=sampler)
    for epoch in range(args.epochs):
        if sampler is not None:
            sampler.set_epoch(epoch)
        model.train()
        for images, target in loader:
            images, target = images.cuda(gpu, non_blocking=True), target.cuda(gpu, non_blocking=True)
            loss = criterion(model(images), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
