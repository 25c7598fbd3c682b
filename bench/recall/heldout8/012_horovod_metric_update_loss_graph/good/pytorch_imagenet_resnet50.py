import math

import horovod.torch as hvd
import torch
import torch.nn.functional as F


class Metric(object):
    def __init__(self, name):
        self.name = name
        self.sum = torch.tensor(0.)
        self.n = torch.tensor(0.)

    def update(self, val):
        self.sum += hvd.allreduce(val.cpu(), name=self.name)
        self.n += 1

    @property
    def avg(self):
        return self.sum / self.n


def accuracy(output, target):
    pred = output.max(1, keepdim=True)[1]
    return pred.eq(target.view_as(pred)).cpu().float().mean()


def train(epoch, model, optimizer, train_loader, train_sampler, batch_size, allreduce_batch_size):
    model.train()
    train_sampler.set_epoch(epoch)
    train_loss = Metric("train_loss")
    train_accuracy = Metric("train_accuracy")
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.cuda(), target.cuda()
        optimizer.zero_grad()
        for i in range(0, len(data), batch_size):
            data_batch = data[i:i + batch_size]
            target_batch = target[i:i + batch_size]
            output = model(data_batch)
            train_accuracy.update(accuracy(output, target_batch))
            loss = F.cross_entropy(output, target_batch)
            train_loss.update(loss.detach())
            loss.div_(math.ceil(float(len(data)) / batch_size))
            loss.backward()
        optimizer.step()
    return train_loss.avg.item(), train_accuracy.avg.item()
