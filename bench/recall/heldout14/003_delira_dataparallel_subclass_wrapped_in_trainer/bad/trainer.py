import logging

import torch

from networks import DataParallelPyTorchNetwork


class PyTorchNetworkTrainer:
    def __init__(self, network, optimizer_cls, optimizer_params, losses, gpu_ids=(), save_path="checkpoints"):
        self.losses = losses
        self.save_path = save_path
        if gpu_ids and torch.cuda.is_available():
            self.input_device = torch.device(f"cuda:{gpu_ids[0]}")
            network = network.to(self.input_device)
            if len(gpu_ids) > 1:
                network = DataParallelPyTorchNetwork(network, device_ids=list(gpu_ids), output_device=gpu_ids[0])  # expect: TCK204
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
            self._train_single_epoch(train_loader, epoch)
            torch.save({"epoch": epoch, "state_dict": self.module.state_dict()},
                       f"{self.save_path}/checkpoint_epoch_{epoch}.pt")
