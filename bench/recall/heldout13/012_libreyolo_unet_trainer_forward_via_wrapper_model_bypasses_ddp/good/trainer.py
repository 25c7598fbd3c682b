import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.utils.data import DataLoader, DistributedSampler


class BaseTrainer:
    """Family-agnostic training loop; subclasses implement ``on_forward``."""

    def __init__(self, model, wrapper_model=None, epochs=100, lr=1e-3, batch=16, dataset=None):
        self.model = model
        self.wrapper_model = wrapper_model
        self.epochs, self.lr, self.batch = epochs, lr, batch
        self.dataset = dataset
        self.is_distributed = "LOCAL_RANK" in os.environ
        if self.is_distributed and not dist.is_initialized():
            dist.init_process_group(backend="nccl")
        self.local_rank = int(os.environ.get("LOCAL_RANK", 0))
        self.device = torch.device("cuda", self.local_rank) if torch.cuda.is_available() else torch.device("cpu")

    def on_forward(self, imgs, targets):
        raise NotImplementedError

    def setup(self):
        self.model.to(self.device)
        self.sampler = DistributedSampler(self.dataset) if self.is_distributed else None
        self.loader = DataLoader(self.dataset, batch_size=self.batch, sampler=self.sampler,
                                 shuffle=self.sampler is None, num_workers=4, drop_last=True)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=self.lr, weight_decay=1e-4)
        # DDP wrap after the optimizer so it sees the raw parameters
        if self.is_distributed:
            self.model = nn.SyncBatchNorm.convert_sync_batchnorm(self.model)
            self.model = nn.parallel.DistributedDataParallel(
                self.model, device_ids=[self.local_rank], output_device=self.local_rank)

    def train(self):
        self.setup()
        for epoch in range(self.epochs):
            if self.sampler is not None:
                self.sampler.set_epoch(epoch)
            self.model.train()
            for imgs, targets in self.loader:
                imgs, targets = imgs.to(self.device), targets.to(self.device)
                outputs = self.on_forward(imgs, targets)
                loss = outputs["total_loss"]
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                self.optimizer.step()
            if not self.is_distributed or dist.get_rank() == 0:
                raw = self.model.module if self.is_distributed else self.model
                torch.save(raw.state_dict(), f"unet_epoch{epoch}.pt")
