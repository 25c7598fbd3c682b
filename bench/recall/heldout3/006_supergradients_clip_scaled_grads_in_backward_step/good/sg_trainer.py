import torch
from torch.cuda.amp import GradScaler


class Trainer:
    def __init__(self, net, optimizer, training_params):
        self.net = net
        self.optimizer = optimizer
        self.training_params = training_params
        self.scaler = GradScaler(enabled=training_params.mixed_precision)

    def _backward_step(self, loss, batch_idx):
        self.scaler.scale(loss).backward()
        if batch_idx % self.training_params.batch_accumulate == 0:
            if self.training_params.clip_grad_norm:
                self.scaler.unscale_(self.optimizer)
                torch.nn.utils.clip_grad_norm_(self.net.parameters(), self.training_params.clip_grad_norm)
            self.scaler.step(self.optimizer)
            self.scaler.update()
            self.optimizer.zero_grad()

    def train_epoch(self, loader, criterion):
        self.net.train()
        for batch_idx, (inputs, targets) in enumerate(loader, start=1):
            with torch.autocast("cuda", enabled=self.training_params.mixed_precision):
                loss = criterion(self.net(inputs), targets)
            self._backward_step(loss, batch_idx)
