import torch
import torch.nn as nn


class AverageMeter:
    def __init__(self):
        self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n


def accuracy(output, target, topk=(1,)):
    maxk = max(topk)
    _, pred = output.topk(maxk, 1, True, True)
    correct = pred.t().eq(target.view(1, -1).expand_as(pred.t()))
    return [correct[:k].reshape(-1).float().sum(0, keepdim=True) * (100.0 / target.size(0)) for k in topk]


def train(train_loader, model, criterion, optimizer):
    losses = AverageMeter()
    top1 = AverageMeter()
    model.train()
    for i, (input, target) in enumerate(train_loader):
        target = target.cuda(non_blocking=True)
        output = model(input.cuda())
        loss = criterion(output, target)
        prec1 = accuracy(output, target, topk=(1,))[0]
        losses.update(loss.data[0], input.size(0))  # expect: TCK115
        top1.update(prec1[0], input.size(0))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


model = nn.Linear(10, 5).cuda()
criterion = nn.CrossEntropyLoss().cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
