import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

from networks import ClassificationNetwork
from trainer import PyTorchNetworkTrainer


def main():
    local_rank = None
    if "LOCAL_RANK" in os.environ:
        dist.init_process_group("nccl")
        local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(local_rank)
    train_set = datasets.MNIST("data", train=True, download=True, transform=transforms.ToTensor())
    sampler = DistributedSampler(train_set) if local_rank is not None else None
    loader = DataLoader(train_set, batch_size=256, shuffle=sampler is None, sampler=sampler, num_workers=4)
    trainer = PyTorchNetworkTrainer(
        ClassificationNetwork(),
        optimizer_cls=torch.optim.Adam,
        optimizer_params={"lr": 1e-3},
        losses={"CE": nn.CrossEntropyLoss()},
        local_rank=local_rank,
    )
    trainer.train(10, loader)


if __name__ == "__main__":
    main()
