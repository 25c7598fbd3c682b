import argparse
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from model.pspnet import PSPNet


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def intersection_and_union(output, target, k, ignore_index=255):
    output = output.view(-1)
    target = target.view(-1)
    output[target == ignore_index] = ignore_index
    intersection = output[output == target]
    area_inter = torch.histc(intersection.float(), bins=k, min=0, max=k - 1)
    area_output = torch.histc(output.float(), bins=k, min=0, max=k - 1)
    area_target = torch.histc(target.float(), bins=k, min=0, max=k - 1)
    return area_inter, area_output + area_target - area_inter


def train(train_loader, model, criterion, optimizer, epoch):
    model.train()
    loss_meter = AverageMeter()
    for i, (input, target) in enumerate(train_loader):
        input = input.cuda(non_blocking=True)
        target = target.cuda(non_blocking=True)
        output = model(input)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        loss_meter.update(loss.item(), input.size(0))
    return loss_meter.avg


def validate(val_loader, model, criterion, classes):
    loss_meter = AverageMeter()
    inter_sum = torch.zeros(classes).cuda()
    union_sum = torch.zeros(classes).cuda()
    model.eval()
    end = time.time()
    for i, (input, target) in enumerate(val_loader):
        input = input.cuda(non_blocking=True)
        target = target.cuda(non_blocking=True)
        output = model(input)  # expect: TCK113
        loss = criterion(output, target)
        output = output.max(1)[1]
        inter, union = intersection_and_union(output, target, classes)
        inter_sum += inter
        union_sum += union
        loss_meter.update(loss.item(), input.size(0))
    miou = (inter_sum / (union_sum + 1e-10)).mean().item()
    print(f"Val result: mIoU {miou:.4f} ({time.time() - end:.1f}s)")
    return loss_meter.avg, miou


def main_worker(args):
    model = PSPNet(classes=args.classes).cuda()
    criterion = nn.CrossEntropyLoss(ignore_index=255)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.base_lr, momentum=0.9, weight_decay=1e-4)
    images = torch.randn(32, 3, 96, 96)
    labels = torch.randint(0, args.classes, (32, 96, 96))
    train_loader = DataLoader(TensorDataset(images, labels), batch_size=8, shuffle=True)
    val_loader = DataLoader(TensorDataset(images, labels), batch_size=4)
    for epoch in range(args.start_epoch, args.epochs):
        epoch_log = epoch + 1
        loss_train = train(train_loader, model, criterion, optimizer, epoch)
        print(f"epoch {epoch_log} train loss {loss_train:.4f}")
        if args.evaluate and epoch_log % args.eval_freq == 0:
            validate(val_loader, model, criterion, args.classes)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--classes", type=int, default=21)
    parser.add_argument("--base-lr", dest="base_lr", type=float, default=0.01)
    parser.add_argument("--start-epoch", dest="start_epoch", type=int, default=0)
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--evaluate", action="store_true")
    parser.add_argument("--eval-freq", dest="eval_freq", type=int, default=1)
    main_worker(parser.parse_args())
