import time

import torch
import torch.nn as nn

from util import AverageMeter


def train(loader, model, crit, opt, epoch):
    batch_time = AverageMeter()
    losses = AverageMeter()
    optimizer_tl = torch.optim.SGD(model.top_layer.parameters(), lr=0.05, weight_decay=10 ** -5)
    model.train()
    end = time.time()
    for i, (input_tensor, target) in enumerate(loader):
        target = target.cuda(non_blocking=True)
        input_var = torch.autograd.Variable(input_tensor.cuda())
        target_var = torch.autograd.Variable(target)
        output = model(input_var)
        loss = crit(output, target_var)
        losses.update(loss.item(), input_tensor.size(0))
        opt.zero_grad()
        optimizer_tl.zero_grad()
        loss.backward()
        opt.step()
        optimizer_tl.step()
        batch_time.update(time.time() - end)
        end = time.time()
    return losses.avg


def main(model, train_dataloader, epochs):
    criterion = nn.CrossEntropyLoss().cuda()
    optimizer = torch.optim.SGD(filter(lambda x: x.requires_grad, model.parameters()), lr=0.05, momentum=0.9, weight_decay=10 ** -5)
    for epoch in range(epochs):
        loss = train(train_dataloader, model, criterion, optimizer, epoch)
        print(f"epoch {epoch}: loss {loss:.3f}")
