import time

from torch.autograd import Variable

from meters import AverageMeter


class BaseTrainer(object):
    def __init__(self, model, criterion):
        super(BaseTrainer, self).__init__()
        self.model = model
        self.criterion = criterion

    def train(self, epoch, data_loader, optimizer, base_lr=0.1, print_freq=1):
        self.model.train()
        batch_time = AverageMeter()
        losses = AverageMeter()
        precisions = AverageMeter()
        end = time.time()
        for i, inputs in enumerate(data_loader):
            inputs, targets = self._parse_data(inputs)
            loss, prec1 = self._forward(inputs, targets)
            losses.update(loss.item(), targets.size(0))
            precisions.update(prec1, targets.size(0))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            batch_time.update(time.time() - end)
            end = time.time()
            if (i + 1) % print_freq == 0:
                print("Epoch: [{}][{}/{}]\tLoss {:.3f} ({:.3f})\tPrec {:.2%}".format(
                    epoch, i + 1, len(data_loader), losses.val, losses.avg, precisions.avg))

    def _parse_data(self, inputs):
        raise NotImplementedError

    def _forward(self, inputs, targets):
        raise NotImplementedError


class Trainer(BaseTrainer):
    def _parse_data(self, inputs):
        imgs, _, pids, _ = inputs
        return [Variable(imgs.cuda())], Variable(pids.cuda())

    def _forward(self, inputs, targets):
        outputs = self.model(*inputs)
        loss = self.criterion(outputs, targets)
        prec = (outputs.data.max(1)[1] == targets.data).float().mean().item()
        return loss, prec
