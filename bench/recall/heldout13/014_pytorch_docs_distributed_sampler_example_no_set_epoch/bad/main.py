import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from engine import train


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--start-epoch", type=int, default=0)
    parser.add_argument("--n-epochs", type=int, default=90)
    args = parser.parse_args()

    is_distributed = "WORLD_SIZE" in os.environ and int(os.environ["WORLD_SIZE"]) > 1
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    device = torch.device("cuda", local_rank) if torch.cuda.is_available() else torch.device("cpu")
    model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, 512), nn.ReLU(), nn.Linear(512, 10)).to(device)
    if is_distributed:
        dist.init_process_group(backend="nccl")
        torch.cuda.set_device(local_rank)
        model = DDP(model, device_ids=[local_rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

    dataset = TensorDataset(torch.randn(50000, 3, 32, 32), torch.randint(0, 10, (50000,)))
    sampler = DistributedSampler(dataset) if is_distributed else None  # expect: TCK206
    loader = DataLoader(dataset, batch_size=128, shuffle=(sampler is None), sampler=sampler)
    for epoch in range(args.start_epoch, args.n_epochs):
        train(loader, model, optimizer, device)


if __name__ == "__main__":
    main()
