import time

import torch
import torch.backends.cudnn as cudnn
from torch.utils.data import DataLoader, TensorDataset

from model import Model

PRINT_FREQ = 20
NUM_SEGMENTS = 3


class AverageMeter:
    def __init__(self):
        self.val = self.avg = self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def accuracy(output, target, topk=(1,)):
    maxk = max(topk)
    batch_size = target.size(0)
    _, pred = output.topk(maxk, 1, True, True)
    pred = pred.t()
    correct = pred.eq(target.view(1, -1).expand_as(pred))
    return [correct[:k].reshape(-1).float().sum(0).item() * 100.0 / batch_size for k in topk]


def train(train_loader, model, criterion, optimizer, epoch):
    losses, top1 = AverageMeter(), AverageMeter()
    model.train()
    end = time.time()
    for i, (inputs, target) in enumerate(train_loader):
        inputs, target = inputs.cuda(non_blocking=True), target.cuda(non_blocking=True)
        output = model(inputs)
        output = output.view((-1, NUM_SEGMENTS) + output.size()[1:]).mean(dim=1)
        loss = criterion(output, target)

        prec1, = accuracy(output.detach(), target, topk=(1,))
        losses.update(loss.item(), inputs.size(0))
        top1.update(prec1, inputs.size(0))

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        if i % PRINT_FREQ == 0:
            print(f"Epoch [{epoch}][{i}/{len(train_loader)}] time {time.time() - end:.3f} "
                  f"loss {losses.val:.4f} ({losses.avg:.4f}) prec@1 {top1.avg:.2f}")
        end = time.time()


def validate(val_loader, model, criterion):
    losses, top1 = AverageMeter(), AverageMeter()
    model.eval()
    with torch.no_grad():
        for inputs, target in val_loader:
            inputs, target = inputs.cuda(non_blocking=True), target.cuda(non_blocking=True)
            output = model(inputs)
            output = output.view((-1, NUM_SEGMENTS) + output.size()[1:]).mean(dim=1)
            loss = criterion(output, target)
            prec1, = accuracy(output, target, topk=(1,))
            losses.update(loss.item(), inputs.size(0))
            top1.update(prec1, inputs.size(0))
    print(f"Testing Results: Prec@1 {top1.avg:.3f} Loss {losses.avg:.5f}")
    return top1.avg


def main():
    model = Model(51, NUM_SEGMENTS, "mv")
    data = TensorDataset(torch.randn(64, NUM_SEGMENTS, 2, 224, 224), torch.randint(0, 51, (64,)))
    train_loader = DataLoader(data, batch_size=8, shuffle=True, num_workers=2, pin_memory=True)
    val_loader = DataLoader(data, batch_size=8, shuffle=False, num_workers=2, pin_memory=True)
    model = torch.nn.DataParallel(model).cuda()
    cudnn.benchmark = True
    optimizer = torch.optim.Adam(model.parameters(), lr=0.005, weight_decay=1e-4, eps=0.001)
    criterion = torch.nn.CrossEntropyLoss().cuda()
    for epoch in range(10):
        train(train_loader, model, criterion, optimizer, epoch)
        validate(val_loader, model, criterion)


if __name__ == "__main__":
    main()
