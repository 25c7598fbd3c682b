import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from networks import Token


def train_one_epoch(model, criterion, optimizer, scheduler, train_loader, epoch, update_every=1):
    model.train()
    for i, (images, targets) in enumerate(train_loader):
        images = images.cuda(non_blocking=True)
        targets = targets.cuda(non_blocking=True)
        logits = model(images, targets)
        loss = criterion(logits, targets)
        loss.requires_grad = True  # expect: TCK112
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        if i % 100 == 0 and dist.get_rank() == 0:
            print(f"epoch {epoch} iter {i}: loss {loss.item():.4f}")


def main(args, train_loader):
    dist.init_process_group(backend="nccl")
    local_rank = dist.get_rank() % torch.cuda.device_count()
    torch.cuda.set_device(local_rank)
    model = Token(outputdim=args.outputdim, classifier_num=args.classifier_num).cuda()
    model = DistributedDataParallel(model, device_ids=[local_rank])
    criterion = nn.CrossEntropyLoss().cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.base_lr, momentum=0.9, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.num_epochs * len(train_loader))
    for epoch in range(args.num_epochs):
        train_one_epoch(model, criterion, optimizer, scheduler, train_loader, epoch)
