import logging
import os
import time

import torch
import torch.nn as nn
from torch.autograd import Variable
from torch.nn.parallel import DataParallel
from torch.nn.utils import clip_grad_norm

from .config import PAD
from .utils.cross_entropy import CrossEntropyLoss
from .utils.meters import AverageMeter
from .utils.optim import OptimRegime

__all__ = ["Seq2SeqTrainer"]


class AddLossModule(nn.Module):
    """Runs the model and its criterion together so DataParallel splits both."""

    def __init__(self, module, criterion, ignore_index=PAD):
        super(AddLossModule, self).__init__()
        self.module = module
        self.criterion = criterion
        self.ignore_index = ignore_index

    def forward(self, module_inputs, target):
        output = self.module(*module_inputs)
        output = output.view(-1, output.size(2))
        target = target.view(-1)
        loss = self.criterion(output, target).view(1, 1)
        _, argmax = output.max(-1)
        correct = argmax.eq(target).masked_fill_(target.eq(self.ignore_index), 0).long().sum()
        return loss, correct.view(1, 1)


class Seq2SeqTrainer(object):
    def __init__(self, model, regime=None, criterion=None, label_smoothing=0, print_freq=10,
                 grad_clip=None, save_path=".", avg_loss_time=True, devices=None, cuda=True):
        super(Seq2SeqTrainer, self).__init__()
        self.model = model
        self.criterion = criterion or CrossEntropyLoss(size_average=False, ignore_index=PAD,
                                                       smooth_eps=label_smoothing)
        self.optimizer = OptimRegime(self.model.parameters(), regime=regime)
        self.grad_clip = grad_clip
        self.print_freq = print_freq
        self.save_path = save_path
        self.avg_loss_time = avg_loss_time
        self.cuda = cuda
        self.devices = devices
        self.epoch = 0
        self.training_steps = 0
        self.model_with_loss = AddLossModule(self.model, self.criterion)
        if isinstance(self.devices, tuple):
            self.model_with_loss = DataParallel(self.model_with_loss, self.devices,
                                                dim=0 if self.batch_first else 1)

    @property
    def batch_first(self):
        return getattr(self.model.decoder, "batch_first", False)

    def iterate(self, src, target, training=True):
        src, src_length = src
        target, target_length = target
        batch_dim = 0 if self.batch_first else 1
        num_words = sum(target_length) - target.size(batch_dim)

        if self.cuda and not isinstance(self.model_with_loss, DataParallel):
            src, target = src.cuda(), target.cuda()
        src_var = Variable(src, volatile=not training)
        target_var = Variable(target, volatile=not training)

        if self.batch_first:
            inputs = (src_var, target_var[:, :-1])
            target_labels = target_var[:, 1:].contiguous()
        else:
            inputs = (src_var, target_var[:-1])
            target_labels = target_var[1:]

        # one (1, 1) loss per replica: sum them
        loss, accuracy = self.model_with_loss(inputs, target_labels)
        loss = loss.sum()
        loss_measure = loss.data[0] / num_words  # expect: TCK115
        if self.avg_loss_time:
            loss /= num_words
        else:
            loss /= target.size(batch_dim)
        accuracy = accuracy.sum().float() / num_words

        if training:
            self.optimizer.zero_grad()
            loss.backward()
            if self.grad_clip is not None and self.grad_clip > 0:
                clip_grad_norm(self.model.parameters(), self.grad_clip)
            self.optimizer.step()
        return loss_measure, accuracy.data[0], num_words

    def feed_data(self, data_loader, training=True):
        if training:
            self.model.train()
        else:
            self.model.eval()
        batch_time, tok_time, losses, accuracy = AverageMeter(), AverageMeter(), AverageMeter(), AverageMeter()
        end = time.time()
        for i, (src, target) in enumerate(data_loader):
            loss, acc, num_words = self.iterate(src, target, training=training)
            losses.update(loss, num_words)
            accuracy.update(acc, num_words)
            elapsed = time.time() - end
            batch_time.update(elapsed)
            tok_time.update(num_words / elapsed)
            end = time.time()
            if training:
                self.training_steps += 1
            if i % self.print_freq == 0:
                logging.info("%s [%d][%d/%d] Loss %.4f (%.4f) Acc %.4f (%.4f) Tok/sec %.1f",
                             "TRAINING" if training else "EVALUATING", self.epoch, i, len(data_loader),
                             losses.val, losses.avg, accuracy.val, accuracy.avg, tok_time.avg)
        return {"loss": losses.avg, "accuracy": accuracy.avg}

    def evaluate(self, data_loader):
        return self.feed_data(data_loader, training=False)

    def run(self, train_loader, val_loader=None, epochs=10):
        for epoch in range(self.epoch, epochs):
            self.epoch = epoch
            train_results = self.feed_data(train_loader, training=True)
            logging.info("epoch %d train loss %.4f", epoch, train_results["loss"])
            if val_loader is not None:
                val_results = self.evaluate(val_loader)
                logging.info("epoch %d val loss %.4f acc %.4f", epoch, val_results["loss"],
                             val_results["accuracy"])
            torch.save({"epoch": epoch + 1, "state_dict": self.model.state_dict()},
                       os.path.join(self.save_path, "checkpoint.pth.tar"))
