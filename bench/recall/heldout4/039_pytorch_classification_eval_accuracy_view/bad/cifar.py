import torch

from eval import accuracy


def train(trainloader, model, criterion, optimizer, use_cuda=True):
    model.train()
    for inputs, targets in trainloader:
        if use_cuda:
            inputs, targets = inputs.cuda(), targets.cuda(non_blocking=True)
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        prec1, prec5 = accuracy(outputs.data, targets.data, topk=(1, 5))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
