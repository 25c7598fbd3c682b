import logging

import torch
import torch.distributed as dist

from networks import DistributedPyTorchNetwork


class PyTorchNetworkTrainer:
    def __init__(self, network, optimizer_cls, optimizer_params, losses, local_rank=None, save_path="checkpoints"):
        self.losses = losses
        self.save_path = save_path
        self.distributed = local_rank is not None
        if self.distributed:
            self.input_device = torch.device(f"cuda:{local_rank}")
            network = DistributedPyTorchNetwork(network.to(self.input_device), device_id=local_rank)
        elif torch.cuda.is_available():
            self.input_device = torch.device("cuda:0")
            network = network.to(self.input_device)
        else:
            self.input_device = torch.device("cpu")
        self.module = network
        self.closure_fn = network.closure
        self.optimizers = {"default": optimizer_cls(network.parameters(), **optimizer_params)}

    def _train_single_epoch(self, loader, epoch):
        self.module.train()
        for batch_idx, (data, label) in enumerate(loader):
            data_dict = {"data": data.to(self.input_device), "label": label.to(self.input_device)}
            loss_vals, _ = self.closure_fn(self.module, data_dict, self.optimizers, self.losses)
            if batch_idx % 50 == 0:
                logging.info("epoch %d batch %d: %s", epoch, batch_idx, loss_vals)

    def train(self, num_epochs, train_loader):
        for epoch in range(1, num_epochs + 1):
            if self.distributed:
                train_loader.sampler.set_epoch(epoch)
            self._train_single_epoch(train_loader, epoch)
            if not self.distributed or dist.get_rank() == 0:
                torch.save({"epoch": epoch, "state_dict": self.module.state_dict()},
                           f"{self.save_path}/checkpoint_epoch_{epoch}.pt")
