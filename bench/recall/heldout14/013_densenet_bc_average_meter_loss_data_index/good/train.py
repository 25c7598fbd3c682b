import argparse
import time

import torch
import torch.nn as nn
import torchvision.datasets as datasets
import torchvision.transforms as transforms
from torch.autograd import Variable

from densenet import DenseNet3

parser = argparse.ArgumentParser(description="PyTorch DenseNet Training")
parser.add_argument("--epochs", default=300, type=int)
parser.add_argument("--lr", default=0.1, type=float)
parser.add_argument("--print-freq", default=10, type=int)


class AverageMeter:
    """Computes and stores the average and current value"""

    def __init__(self):
        self.val = self.avg = self.sum = self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def accuracy(output, target, topk=(1,)):
    maxk = max(topk)
    batch_size = target.size(0)
    _, pred = output.topk(maxk, 1, True, True)
    correct = pred.t().eq(target.view(1, -1).expand_as(pred.t()))
    return [float(correct[:k].reshape(-1).float().sum()) * 100.0 / batch_size for k in topk]


def train(train_loader, model, criterion, optimizer, epoch, print_freq):
    batch_time, losses, top1 = AverageMeter(), AverageMeter(), AverageMeter()
    model.train()
    end = time.time()
    for i, (input, target) in enumerate(train_loader):
        target = target.cuda(non_blocking=True)
        input_var = Variable(input.cuda())
        target_var = Variable(target)
        output = model(input_var)
        loss = criterion(output, target_var)
        prec1 = accuracy(output.data, target, topk=(1,))[0]
        losses.update(loss.item(), input.size(0))
        top1.update(prec1, input.size(0))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        batch_time.update(time.time() - end)
        end = time.time()
        if i % print_freq == 0:
            print(f"Epoch: [{epoch}][{i}/{len(train_loader)}]\tLoss {losses.val:.4f} ({losses.avg:.4f})\t"
                  f"Prec@1 {top1.val:.3f} ({top1.avg:.3f})")


def validate(val_loader, model, criterion, epoch, print_freq):
    losses, top1 = AverageMeter(), AverageMeter()
    model.eval()
    for i, (input, target) in enumerate(val_loader):
        target = target.cuda(non_blocking=True)
        input_var = Variable(input.cuda(), volatile=True)
        target_var = Variable(target, volatile=True)
        output = model(input_var)
        loss = criterion(output, target_var)
        prec1 = accuracy(output.data, target, topk=(1,))[0]
        losses.update(loss.item(), input.size(0))
        top1.update(prec1, input.size(0))
        if i % print_freq == 0:
            print(f"Test: [{i}/{len(val_loader)}]\tLoss {losses.val:.4f} ({losses.avg:.4f})")
    print(f" * Prec@1 {top1.avg:.3f}")
    return top1.avg


def main():
    args = parser.parse_args()
    normalize = transforms.Normalize(mean=[0.491, 0.482, 0.447], std=[0.247, 0.243, 0.262])
    train_tf = transforms.Compose([transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip(),
                                   transforms.ToTensor(), normalize])
    val_tf = transforms.Compose([transforms.ToTensor(), normalize])
    train_loader = torch.utils.data.DataLoader(datasets.CIFAR10("../data", train=True, download=True, transform=train_tf),
                                               batch_size=64, shuffle=True, num_workers=2, pin_memory=True)
    val_loader = torch.utils.data.DataLoader(datasets.CIFAR10("../data", train=False, transform=val_tf),
                                             batch_size=64, shuffle=False, num_workers=2, pin_memory=True)
    model = DenseNet3(depth=100, num_classes=10).cuda()
    criterion = nn.CrossEntropyLoss().cuda()
    optimizer = torch.optim.SGD(model.parameters(), args.lr, momentum=0.9, nesterov=True, weight_decay=1e-4)
    best_prec1 = 0
    for epoch in range(args.epochs):
        train(train_loader, model, criterion, optimizer, epoch, args.print_freq)
        prec1 = validate(val_loader, model, criterion, epoch, args.print_freq)
        if prec1 > best_prec1:
            best_prec1 = prec1
            torch.save({"epoch": epoch + 1, "state_dict": model.state_dict(), "best_prec1": best_prec1},
                       "model_best.pth.tar")


if __name__ == "__main__":
    main()
