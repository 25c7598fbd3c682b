import itertools
import logging
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from model import Model

HP = {"device": "cuda", "lr": 1e-3, "name": "run", "chkpt_dir": "chkpt", "num_iter": 100, "chkpt_interval": 10}


def setup(rank, world_size):
    os.environ.setdefault("MASTER_ADDR", "localhost")
    os.environ.setdefault("MASTER_PORT", "12355")
    dist.init_process_group("nccl", rank=rank, world_size=world_size)


def train_model(model, train_loader, logger):
    for input_, target in train_loader:
        model.feed_data(input=input_, GT=target)
        model.optimize_parameters()
        model.step += 1
        if logger is not None and model.step % 100 == 0:
            logger.info("Train loss %.04f at step %d" % (model.loss_v, model.step))


def train_loop(rank, world_size):
    setup(rank, world_size)
    torch.cuda.set_device(rank)
    hp = dict(HP, device=rank)
    logger = logging.getLogger("train") if rank == 0 else None
    os.makedirs(hp["chkpt_dir"], exist_ok=True)

    dataset = TensorDataset(torch.randn(1024, 16), torch.randn(1024, 1))
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank)
    train_loader = DataLoader(dataset, batch_size=32, sampler=sampler, num_workers=2)

    net_arch = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 1))
    model = Model(hp, net_arch, nn.MSELoss(), rank, world_size)

    for model.epoch in itertools.count(model.epoch + 1):
        if model.epoch > hp["num_iter"]:
            break
        sampler.set_epoch(model.epoch)
        train_model(model, train_loader, logger)
        if model.epoch % hp["chkpt_interval"] == 0:
            model.save_network(logger)
            model.save_training_state(logger)
    dist.destroy_process_group()


if __name__ == "__main__":
    world_size = torch.cuda.device_count()
    mp.spawn(train_loop, args=(world_size,), nprocs=world_size, join=True)
