import os

import torch
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch.distributed import destroy_process_group, init_process_group
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

from datautils import RandomRegressionSet


def setup_process(rank, world_size):
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = "12355"
    init_process_group(backend="nccl", rank=rank, world_size=world_size)


class Trainer:
    def __init__(self, model, train_loader, optimizer, gpu_id, snapshot_every):
        self.gpu_id = gpu_id
        self.rank = gpu_id
        self.train_loader = train_loader
        self.optimizer = optimizer
        self.snapshot_every = snapshot_every
        self.model = DDP(model.to(gpu_id), device_ids=[gpu_id])

    def _step(self, inputs, targets):
        self.optimizer.zero_grad()
        loss = F.mse_loss(self.model(inputs), targets)
        loss.backward()
        self.optimizer.step()

    def _one_epoch(self, epoch):
        batch_size = len(next(iter(self.train_loader))[0])
        print(f"[GPU{self.gpu_id}] epoch {epoch} | batch size {batch_size} | steps {len(self.train_loader)}")
        for inputs, targets in self.train_loader:
            inputs = inputs.to(self.gpu_id)
            targets = targets.to(self.gpu_id)
            self._step(inputs, targets)

    def _snapshot(self, epoch):
        torch.save(self.model.module.state_dict(), "checkpoint.pt")
        print(f"epoch {epoch} | checkpoint written")

    def train(self, max_epochs):
        for epoch in range(max_epochs):
            self._one_epoch(epoch)
            if self.rank == 0 and epoch % self.snapshot_every == 0:
                self._snapshot(epoch)


def build_objects():
    dataset = RandomRegressionSet(2048)
    model = torch.nn.Linear(20, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    return dataset, model, optimizer


def build_loader(dataset: Dataset, batch_size: int):
    return DataLoader(
        dataset,
        batch_size=batch_size,
        pin_memory=True,
        shuffle=False,
        sampler=DistributedSampler(dataset),  # expect: TCK206
    )


def worker(rank, world_size, snapshot_every, total_epochs, batch_size):
    setup_process(rank, world_size)
    dataset, model, optimizer = build_objects()
    loader = build_loader(dataset, batch_size)
    Trainer(model, loader, optimizer, rank, snapshot_every).train(total_epochs)
    destroy_process_group()


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="toy multi-GPU DDP job")
    parser.add_argument("total_epochs", type=int)
    parser.add_argument("snapshot_every", type=int)
    parser.add_argument("--batch_size", default=32, type=int)
    args = parser.parse_args()
    world_size = torch.cuda.device_count()
    mp.spawn(worker, args=(world_size, args.snapshot_every, args.total_epochs, args.batch_size), nprocs=world_size)
