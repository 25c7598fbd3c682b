import os
from functools import cached_property
from time import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from model import Model


class TrainerBase:
    def __init__(self, cfg):
        self.cfg = cfg
        dist.init_process_group("nccl")
        self.local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(self.local_rank)

    @cached_property
    def device(self):
        return torch.device("cuda", self.local_rank)

    @cached_property
    def model(self):
        model = Model(self.cfg["in_channels"], self.cfg["out_channels"]).to(self.device)
        return DistributedDataParallel(model, device_ids=[self.local_rank])

    @cached_property
    def optimizer(self):
        return torch.optim.Adam(self.model.parameters(), lr=self.cfg["learning_rate"])

    @cached_property
    def loss_module(self):
        return torch.nn.BCEWithLogitsLoss()

    @cached_property
    def training_data_loader(self):
        images = torch.randn(64, 1, 16, 32, 32)
        labels = (torch.rand(64, 3, 16, 32, 32) > 0.5).float()
        dataset = TensorDataset(images, labels)
        return DataLoader(dataset, batch_size=self.cfg["batch_size"], num_workers=2,
                          sampler=DistributedSampler(dataset))

    def __call__(self):
        accumulated_loss = 0.0
        for iter_idx, (image, label) in enumerate(self.training_data_loader, 1):
            ping = time()
            image, label = image.to(self.device), label.to(self.device)
            predict = self.model(image)
            loss = self.loss_module(predict, label)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            accumulated_loss += loss.detach()
            if iter_idx % self.cfg["training_interval"] == 0 and dist.get_rank() == 0:
                print(f"iter {iter_idx}: loss {accumulated_loss.item() / self.cfg['training_interval']:.4f}, "
                      f"{time() - ping:.3f}s")
            if iter_idx % self.cfg["training_interval"] == 0:
                accumulated_loss = 0.0
        dist.destroy_process_group()


if __name__ == "__main__":
    TrainerBase({"in_channels": 1, "out_channels": 3, "learning_rate": 1e-3, "batch_size": 4,
                 "training_interval": 4})()
