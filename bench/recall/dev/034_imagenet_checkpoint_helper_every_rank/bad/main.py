import shutil

import torch
import torch.distributed as dist
import torch.nn as nn
import torchvision.models as models


def save_checkpoint(state, is_best, filename="checkpoint.pth.tar"):
    torch.save(state, filename)  # expect: TCK208
    if is_best:
        shutil.copyfile(filename, "model_best.pth.tar")


def train(train_loader, model, criterion, optimizer):
    model.train()
    for input, target in train_loader:
        loss = criterion(model(input.cuda()), target.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def main(args, train_loader, validate):
    args.distributed = args.world_size > 1
    if args.distributed:
        dist.init_process_group(backend=args.dist_backend, init_method=args.dist_url, world_size=args.world_size)
    model = models.resnet50().cuda()
    if args.distributed:
        model = nn.parallel.DistributedDataParallel(model)
    criterion = nn.CrossEntropyLoss().cuda()
    optimizer = torch.optim.SGD(model.parameters(), args.lr, momentum=0.9)
    best_acc1 = 0.0
    for epoch in range(args.start_epoch, args.epochs):
        train(train_loader, model, criterion, optimizer)
        acc1 = validate(model)
        is_best = acc1 > best_acc1
        best_acc1 = max(acc1, best_acc1)
        save_checkpoint({
            "epoch": epoch + 1,
            "state_dict": model.state_dict(),
            "best_acc1": best_acc1,
            "optimizer": optimizer.state_dict(),
        }, is_best)
