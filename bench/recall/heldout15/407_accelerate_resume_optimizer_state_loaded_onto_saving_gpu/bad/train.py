import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from checkpointing import load_state, save_state


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--resume_from", default=None)
    parser.add_argument("--output_dir", default="ckpt")
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()

    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)

    model = nn.Sequential(nn.Linear(512, 2048), nn.GELU(), nn.Linear(2048, 10)).cuda(local_rank)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    if args.resume_from:
        load_state(args.resume_from, [model], [optimizer], [scheduler])
    ddp_model = DDP(model, device_ids=[local_rank])

    data = TensorDataset(torch.randn(8192, 512), torch.randint(0, 10, (8192,)))
    sampler = DistributedSampler(data, shuffle=True)
    loader = DataLoader(data, batch_size=64, sampler=sampler)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            x, y = x.cuda(local_rank, non_blocking=True), y.cuda(local_rank, non_blocking=True)
            loss = criterion(ddp_model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scheduler.step()
        save_state(os.path.join(args.output_dir, f"epoch_{epoch}"), [model], [optimizer], [scheduler])
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
