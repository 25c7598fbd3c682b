import time

import torch
import torch.nn as nn

from utils.meters import AverageMeter, accuracy


class Trainer:
    def __init__(self, model, criterion, optimizer, device="cuda", grad_clip=-1, print_freq=10):
        self.model = model
        self.criterion = criterion
        self.optimizer = optimizer
        self.device = device
        self.grad_clip = grad_clip
        self.print_freq = print_freq

    def _step(self, inputs, target, training=True):
        output = self.model(inputs)
        loss = self.criterion(output, target)
        if training:
            self.optimizer.zero_grad()
            loss.backward()
            if self.grad_clip > 0:
                nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
            self.optimizer.step()
        return output, loss

    def forward(self, data_loader, training=True):
        meters = {name: AverageMeter() for name in ["loss", "prec1", "prec5", "step"]}
        end = time.time()
        for i, (inputs, target) in enumerate(data_loader):
            inputs, target = inputs.to(self.device), target.to(self.device)
            output, loss = self._step(inputs, target, training=training)
            prec1, prec5 = accuracy(output.detach(), target, topk=(1, 5))
            meters["loss"].update(loss.item(), inputs.size(0))
            meters["prec1"].update(prec1.item(), inputs.size(0))
            meters["prec5"].update(prec5.item(), inputs.size(0))
            meters["step"].update(time.time() - end)
            end = time.time()
            if i % self.print_freq == 0:
                print(f"[{i}/{len(data_loader)}] loss {meters['loss'].avg:.3f} prec@1 {meters['prec1'].avg:.2f}")
        return {name: meter.avg for name, meter in meters.items()}

    def train(self, data_loader):
        self.model.train()
        return self.forward(data_loader, training=True)

    def validate(self, data_loader):
        self.model.eval()
        with torch.no_grad():
            return self.forward(data_loader, training=False)
