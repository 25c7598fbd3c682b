import enum
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel


class MultiGPUMode(enum.Enum):
    OFF = "Off"
    DATA_PARALLEL = "DP"
    DISTRIBUTED_DATA_PARALLEL = "DDP"


class SgModel:
    def __init__(self, experiment_name, multi_gpu=MultiGPUMode.OFF):
        self.experiment_name = experiment_name
        self.multi_gpu = multi_gpu
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        self.net = None
        self.train_loader = None
        self.valid_loader = None

    def connect_dataset_interface(self, dataset_interface):
        distributed = self.multi_gpu == MultiGPUMode.DISTRIBUTED_DATA_PARALLEL
        self.train_loader, self.valid_loader = dataset_interface.get_data_loaders(distributed_sampler=distributed)

    def build_model(self, net):
        self.net = net.to(self.device)
        if self.multi_gpu == MultiGPUMode.DISTRIBUTED_DATA_PARALLEL:
            local_rank = int(os.environ["LOCAL_RANK"])
            self.net = DistributedDataParallel(self.net, device_ids=[local_rank])

    def _train_epoch(self, epoch):
        self.net.train()
        total = 0.0
        for inputs, targets in self.train_loader:
            inputs, targets = inputs.to(self.device), targets.to(self.device)
            loss = self.criterion(self.net(inputs), targets)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            total += loss.item()
        return total / len(self.train_loader)

    @torch.no_grad()
    def _validate_epoch(self, epoch):
        self.net.eval()
        correct = 0
        for inputs, targets in self.valid_loader:
            preds = self.net(inputs.to(self.device)).argmax(1)
            correct += (preds.cpu() == targets).sum().item()
        return correct / len(self.valid_loader.dataset)

    def train(self, max_epochs=100, lr=0.1):
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=lr, momentum=0.9, weight_decay=5e-4)
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, max_epochs)
        for epoch in range(max_epochs):
            train_loss = self._train_epoch(epoch=epoch)
            scheduler.step()
            acc = self._validate_epoch(epoch=epoch)
            is_main = not dist.is_initialized() or dist.get_rank() == 0
            if is_main:
                print(f"epoch {epoch}: loss {train_loss:.4f} acc {acc:.4f}")
                net = self.net.module if isinstance(self.net, DistributedDataParallel) else self.net
                torch.save(net.state_dict(), f"{self.experiment_name}_ckpt.pth")
