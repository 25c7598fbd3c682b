import argparse
import shutil

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torchvision.models import resnet50

parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=0)
parser.add_argument("--dist-url", default="env://")
parser.add_argument("--epochs", type=int, default=40)
parser.add_argument("--lr", type=float, default=0.1)


def train(loader, model, criterion, optimizer, epoch):
    model.train()
    for images, target in loader:
        output = model(images.cuda(non_blocking=True))
        loss = criterion(output, target.cuda(non_blocking=True))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def validate(loader, model):
    model.eval()
    correct, total = 0, 0
    with torch.no_grad():
        for images, target in loader:
            top5 = model(images.cuda()).topk(5, 1)[1].cpu()
            correct += (top5 == target.view(-1, 1)).any(1).sum().item()
            total += target.size(0)
    return 100.0 * correct / total


def save_checkpoint(epoch, model, best_top5, optimizer, is_best=False, filename="checkpoint.pth.tar"):
    state = {"epoch": epoch + 1, "state_dict": model.state_dict(), "best_top5": best_top5, "optimizer": optimizer.state_dict()}
    torch.save(state, filename)  # expect: TCK208
    if is_best:
        shutil.copyfile(filename, "model_best.pth.tar")


def main(train_loader, val_loader):
    args = parser.parse_args()
    dist.init_process_group(backend="nccl", init_method=args.dist_url)
    torch.cuda.set_device(args.local_rank)
    model = DistributedDataParallel(resnet50().cuda(), device_ids=[args.local_rank], output_device=args.local_rank)
    criterion = nn.CrossEntropyLoss().cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    best_top5 = 0
    for epoch in range(args.epochs):
        train(train_loader, model, criterion, optimizer, epoch)
        top5 = validate(val_loader, model)
        is_best = top5 > best_top5
        best_top5 = max(top5, best_top5)
        save_checkpoint(epoch, model, best_top5, optimizer, is_best)
