import os
from abc import ABC, abstractmethod

import torch
from torch.optim import lr_scheduler


def get_scheduler(optimizer, opt):
    def lambda_rule(epoch):
        return 1.0 - max(0, epoch + opt.epoch_count - opt.n_epochs) / float(opt.n_epochs_decay + 1)

    return lr_scheduler.LambdaLR(optimizer, lr_lambda=lambda_rule)


class BaseModel(ABC):
    """Holds the networks, optimizers and schedulers of one experiment."""

    def __init__(self, opt):
        self.opt = opt
        self.device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
        self.save_dir = os.path.join(opt.checkpoints_dir, opt.name)
        self.model_names = []
        self.optimizers = []
        self.schedulers = []

    @abstractmethod
    def set_input(self, batch):
        ...

    @abstractmethod
    def optimize_parameters(self):
        ...

    def setup(self):
        self.schedulers = [get_scheduler(optimizer, self.opt) for optimizer in self.optimizers]

    def update_learning_rate(self):
        old_lr = self.optimizers[0].param_groups[0]["lr"]
        for scheduler in self.schedulers:
            scheduler.step()
        lr = self.optimizers[0].param_groups[0]["lr"]
        print(f"learning rate {old_lr:.7f} -> {lr:.7f}")

    def save_networks(self, epoch):
        os.makedirs(self.save_dir, exist_ok=True)
        for name in self.model_names:
            net = getattr(self, "net" + name)
            torch.save(net.state_dict(), os.path.join(self.save_dir, f"{epoch}_net_{name}.pth"))
