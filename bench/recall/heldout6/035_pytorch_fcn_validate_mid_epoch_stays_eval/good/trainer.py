import torch
import torch.nn.functional as F


def cross_entropy2d(score, target):
    return F.cross_entropy(score, target, ignore_index=-1)


class Trainer:
    def __init__(self, model, optimizer, train_loader, val_loader, interval_validate):
        self.model = model
        self.optim = optimizer
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.interval_validate = interval_validate
        self.epoch = 0
        self.iteration = 0

    def validate(self):
        training = self.model.training
        self.model.eval()
        val_loss = 0
        for data, target in self.val_loader:
            with torch.no_grad():
                score = self.model(data)
                val_loss += cross_entropy2d(score, target).item()
        if training:
            self.model.train()
        return val_loss / len(self.val_loader)

    def train_epoch(self):
        self.model.train()
        for batch_idx, (data, target) in enumerate(self.train_loader):
            self.iteration = batch_idx + self.epoch * len(self.train_loader)
            if self.iteration % self.interval_validate == 0:
                self.validate()
            self.optim.zero_grad()
            score = self.model(data)
            loss = cross_entropy2d(score, target)
            loss.backward()
            self.optim.step()
