import torch
import torch.nn as nn
import torchvision.models as models


class AverageMeter:
    def __init__(self):
        self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n


def train(train_loader, model, criterion, optimizer, epoch):
    losses = AverageMeter()
    model.train()
    for input, target in train_loader:
        target = target.cuda(non_blocking=True)
        input_var = input
        target_var = target
        output = model(input_var)
        loss = criterion(output, target_var)
        losses.update(loss.item(), input.size(0))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print("Epoch {}: loss {:.4f}".format(epoch, losses.sum / max(losses.count, 1)))


def validate(val_loader, model, criterion):
    losses = AverageMeter()
    model.eval()
    with torch.no_grad():
        for input, target in val_loader:
            target = target.cuda(non_blocking=True)
            output = model(input)
            loss = criterion(output, target)
            losses.update(loss.item(), input.size(0))
    return losses.sum / max(losses.count, 1)


def main(args, train_loader, val_loader):
    model = models.resnet18().cuda()
    criterion = nn.CrossEntropyLoss().cuda()
    optimizer = torch.optim.SGD(model.parameters(), args.lr, momentum=0.9)
    for epoch in range(args.epochs):
        train(train_loader, model, criterion, optimizer, epoch)
        validate(val_loader, model, criterion)
