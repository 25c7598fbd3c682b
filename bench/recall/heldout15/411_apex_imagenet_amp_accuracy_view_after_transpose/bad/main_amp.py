import argparse
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torchvision.datasets as datasets
import torchvision.models as models
import torchvision.transforms as transforms
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from metrics import AverageMeter, accuracy, reduce_tensor


def parse():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--arch", default="resnet50")
    parser.add_argument("--epochs", type=int, default=90)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--print-freq", type=int, default=10)
    return parser.parse_args()


def train(loader, model, criterion, optimizer, scaler, epoch, args):
    losses, top1, top5 = AverageMeter(), AverageMeter(), AverageMeter()
    model.train()
    end = time.time()
    for i, (images, target) in enumerate(loader):
        images = images.cuda(non_blocking=True)
        target = target.cuda(non_blocking=True)
        with torch.autocast("cuda", dtype=torch.float16):
            output = model(images)
            loss = criterion(output, target)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        if i % args.print_freq == 0:
            prec1, prec5 = accuracy(output.detach(), target, topk=(1, 5))
            reduced_loss = reduce_tensor(loss.detach())
            prec1, prec5 = reduce_tensor(prec1), reduce_tensor(prec5)
            losses.update(reduced_loss.item(), images.size(0))
            top1.update(prec1.item(), images.size(0))
            top5.update(prec5.item(), images.size(0))
            if dist.get_rank() == 0:
                print(f"Epoch [{epoch}][{i}/{len(loader)}] time {time.time() - end:.3f} "
                      f"loss {losses.avg:.4f} prec@1 {top1.avg:.3f} prec@5 {top5.avg:.3f}")
            end = time.time()


def main():
    args = parse()
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    model = models.__dict__[args.arch]().cuda()
    model = DDP(model, device_ids=[local_rank])
    criterion = nn.CrossEntropyLoss().cuda()
    optimizer = torch.optim.SGD(model.parameters(), args.lr, momentum=0.9, weight_decay=1e-4)
    scaler = torch.amp.GradScaler("cuda")
    train_set = datasets.ImageFolder(os.path.join(args.data, "train"), transforms.Compose([
        transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(), transforms.ToTensor(),
        transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])]))
    sampler = DistributedSampler(train_set)
    loader = DataLoader(train_set, batch_size=args.batch_size, sampler=sampler, num_workers=8, pin_memory=True)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        train(loader, model, criterion, optimizer, scaler, epoch, args)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
