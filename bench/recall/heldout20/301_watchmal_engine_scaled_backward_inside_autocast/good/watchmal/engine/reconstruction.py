"""Base engine that trains and evaluates a reconstruction network."""
import logging
from abc import ABC, abstractmethod
from datetime import datetime

import numpy as np
import torch
from hydra.utils import instantiate
from torch.amp import GradScaler, autocast
from torch.nn.parallel import DistributedDataParallel

log = logging.getLogger(__name__)


class ReconstructionEngine(ABC):
    def __init__(self, target_key, model, rank, device, dump_path):
        self.target_key = target_key
        self.model = model
        self.rank = rank
        self.device = torch.device(device)
        self.dump_path = dump_path
        self.epoch = 0
        self.iteration = 0
        self.best_validation_loss = np.inf

        # mixed precision, switched on later by configure_amp()
        self.use_amp = False
        self.scaler = None

        if isinstance(self.model, DistributedDataParallel):
            self.is_distributed = True
            self.module = self.model.module
        else:
            self.is_distributed = False
            self.module = self.model

        self.data_loaders = {}
        self.data = None
        self.target = None
        self.loss = None
        self.criterion = None
        self.optimizer = None
        self.scheduler = None

    def configure_loss(self, loss_config):
        self.criterion = instantiate(loss_config)

    def configure_optimizers(self, optimizer_config):
        self.optimizer = instantiate(optimizer_config, params=self.module.parameters())

    def configure_scheduler(self, scheduler_config):
        self.scheduler = instantiate(scheduler_config, optimizer=self.optimizer)

    def configure_amp(self, amp_enabled=False):
        self.use_amp = bool(amp_enabled) and self.device.type == "cuda"
        self.scaler = GradScaler("cuda") if self.use_amp else None
        if self.rank == 0:
            log.info(f"AMP enabled: {self.use_amp}")

    def process_data(self, data):
        self.data = data["data"].to(self.device)

    @abstractmethod
    def process_target(self, data):
        """Move the target of the batch to the device."""

    @abstractmethod
    def forward_pass(self):
        """Run the network on self.data."""

    @abstractmethod
    def compute_metrics(self):
        """Compute self.loss and the other metrics."""

    def step(self, train=True, with_metrics=True):
        with torch.set_grad_enabled(train), autocast(device_type=self.device.type, enabled=self.use_amp):
            outputs = self.forward_pass()
            if not with_metrics:
                return outputs
            metrics = self.compute_metrics()
            return outputs, metrics

    def backward(self):
        self.optimizer.zero_grad()
        self.loss.backward()
        self.optimizer.step()

    def train(self, epochs=1, val_interval=20, num_val_batches=4):
        self.model.train()
        val_iter = iter(self.data_loaders["validation"])
        start_time = datetime.now()
        for self.epoch in range(epochs):
            train_loader = self.data_loaders["train"]
            if self.is_distributed:
                train_loader.sampler.set_epoch(self.epoch)
            for train_data in train_loader:
                self.process_data(train_data)
                self.process_target(train_data)
                # the forward pass and the loss run under autocast inside step()
                outputs, metrics = self.step(True, True)
                metrics = {k: v.item() for k, v in metrics.items()}
                if self.scaler is not None:
                    self.optimizer.zero_grad()
                    self.scaler.scale(self.loss).backward()
                    self.scaler.step(self.optimizer)
                    self.scaler.update()
                else:
                    self.backward()
                if self.scheduler is not None:
                    self.scheduler.step()
                self.iteration += 1
                if self.iteration % val_interval == 0:
                    val_iter = self.validate(val_iter, num_val_batches)
        if self.rank == 0:
            log.info(f"Training {epochs} epochs took {datetime.now() - start_time}")

    def validate(self, val_iter, num_val_batches):
        self.model.eval()
        totals = None
        for _ in range(num_val_batches):
            try:
                val_data = next(val_iter)
            except StopIteration:
                val_iter = iter(self.data_loaders["validation"])
                val_data = next(val_iter)
            self.process_data(val_data)
            self.process_target(val_data)
            _, metrics = self.step(False, True)
            metrics = {k: v.item() for k, v in metrics.items()}
            totals = metrics if totals is None else {k: totals[k] + v for k, v in metrics.items()}
        val_metrics = {k: v / num_val_batches for k, v in totals.items()}
        if self.rank == 0 and val_metrics["loss"] < self.best_validation_loss:
            self.best_validation_loss = val_metrics["loss"]
            self.save_state(suffix="_BEST")
        self.model.train()
        return val_iter

    def save_state(self, suffix=""):
        path = f"{self.dump_path}{type(self.module).__name__}{suffix}.pth"
        torch.save({
            "global_step": self.iteration,
            "optimizer": self.optimizer.state_dict(),
            "state_dict": self.module.state_dict(),
        }, path)
        return path
