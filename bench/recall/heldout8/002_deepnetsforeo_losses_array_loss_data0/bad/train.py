import numpy as np
import torch.nn.functional as F
from torch.autograd import Variable


def CrossEntropy2d(input, target, weight=None, size_average=True):
    """2D version of the cross entropy loss"""
    dim = input.dim()
    if dim == 4:
        input = input.view(input.size(0), input.size(1), -1)
        input = input.transpose(1, 2).contiguous().view(-1, input.size(2))
        target = target.view(-1)
    return F.cross_entropy(input, target, weight, size_average)


def train(net, optimizer, epochs, train_loader, scheduler=None, weights=None):
    losses = np.zeros(1000000)
    mean_losses = np.zeros(100000000)
    iter_ = 0
    for e in range(1, epochs + 1):
        if scheduler is not None:
            scheduler.step()
        net.train()
        for batch_idx, (data, target) in enumerate(train_loader):
            data, target = Variable(data.cuda()), Variable(target.cuda())
            optimizer.zero_grad()
            output = net(data)
            loss = CrossEntropy2d(output, target, weight=weights)
            loss.backward()
            optimizer.step()
            losses[iter_] = loss.data[0]  # expect: TCK115
            mean_losses[iter_] = np.mean(losses[max(0, iter_ - 100):iter_])
            if iter_ % 100 == 0:
                print("Train (epoch {}/{}) [{}/{}]\tLoss: {:.6f}".format(
                    e, epochs, batch_idx, len(train_loader), mean_losses[iter_]))
            iter_ += 1
    return mean_losses[:iter_]
