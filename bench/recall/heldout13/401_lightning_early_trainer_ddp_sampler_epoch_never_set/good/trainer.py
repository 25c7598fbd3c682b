import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from model import CoolModel


class Trainer:
    def __init__(self, max_nb_epochs=10, gpus=None):
        self.max_nb_epochs = max_nb_epochs
        self.gpus = gpus or []
        self.use_ddp = len(self.gpus) > 1

    def fit(self, model):
        if self.use_ddp:
            dist.init_process_group("nccl")
            rank = int(os.environ["LOCAL_RANK"])
            torch.cuda.set_device(rank)
            model.cuda(rank)
            self.model = DistributedDataParallel(model, device_ids=[rank])
        else:
            self.model = model
        self.lightning_module = model
        self.optimizer = model.configure_optimizers()
        self.tng_dataloader = model.tng_dataloader()
        for epoch_nb in range(self.max_nb_epochs):
            if self.use_ddp:
                self.tng_dataloader.sampler.set_epoch(epoch_nb)
            self.run_tng_epoch(epoch_nb)

    def run_tng_epoch(self, epoch_nb):
        self.model.train()
        for batch_nb, (x, y) in enumerate(self.tng_dataloader):
            if self.use_ddp:
                x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
            self.optimizer.zero_grad()
            logits = self.model(x)
            loss = torch.nn.functional.cross_entropy(logits, y)
            loss.backward()
            self.optimizer.step()
            if batch_nb % 50 == 0:
                print(f"epoch {epoch_nb} batch {batch_nb} loss {loss.item():.4f}")


if __name__ == "__main__":
    Trainer(max_nb_epochs=5, gpus=[0, 1]).fit(CoolModel())
