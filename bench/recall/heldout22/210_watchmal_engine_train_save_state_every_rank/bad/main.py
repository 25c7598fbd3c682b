"""Spawns one training process per GPU and runs the configured tasks."""
import os

import numpy as np
import torch
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import TensorDataset

from engine_base import BaseEngine

CONFIG = {
    "gpu_list": [0, 1],
    "dump_path": "./outputs/",
    "seed": None,
    "lr": 1e-3,
    "batch_size": 128,
    "train": {"epochs": 10, "report_interval": 100, "val_interval": 1000, "num_val_batches": 32, "save_interval": 2},
}


def make_datasets():
    x = torch.randn(20000, 19, 40, 40)
    y = torch.randint(0, 3, (20000,))
    return {"train": TensorDataset(x[:16000], y[:16000]), "validation": TensorDataset(x[16000:], y[16000:])}


def build_model():
    return torch.nn.Sequential(
        torch.nn.Conv2d(19, 64, 3, padding=1), torch.nn.BatchNorm2d(64), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(64, 3),
    )


def main_worker_function(rank, ngpus_per_node, is_distributed, config):
    gpu = config["gpu_list"][rank]
    torch.cuda.set_device(gpu)
    if is_distributed:
        torch.distributed.init_process_group("nccl", init_method="env://", world_size=ngpus_per_node, rank=rank)
    model = build_model().to(gpu)
    if is_distributed:
        model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model)
        model = DDP(model, device_ids=[gpu])

    engine = BaseEngine(model=model, rank=rank, gpu=gpu, dump_path=config["dump_path"])
    engine.configure_data_loaders(make_datasets(), config["batch_size"], config["seed"])
    engine.configure_optimizers(config["lr"])
    engine.train(**config["train"])
    engine.restore_best_state()


def main(config):
    ngpus = len(config["gpu_list"])
    is_distributed = ngpus > 1
    if is_distributed:
        os.environ["MASTER_ADDR"] = "localhost"
        os.environ["MASTER_PORT"] = str(12355 + config["gpu_list"][0])
    os.makedirs(config["dump_path"], exist_ok=True)
    if config["seed"] is None:
        config["seed"] = int(np.random.randint(100000))
    if is_distributed:
        mp.spawn(main_worker_function, nprocs=ngpus, args=(ngpus, is_distributed, config))
    else:
        main_worker_function(0, ngpus, is_distributed, config)


if __name__ == "__main__":
    main(CONFIG)
