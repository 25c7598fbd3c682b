import torch


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, val, n=1):
        self.sum += float(val) * n
        self.count += n


def train(train_loader, model, criterion, optimizer, epoch):
    losses = AverageMeter()
    model.train()
    for i, (input_, target) in enumerate(train_loader):
        input_, target = input_.cuda(), target.cuda()
        output = model(input_)
        loss = criterion(output, target, model)
        losses.update(loss.item(), input_.size(0))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return losses.sum / losses.count
