import argparse
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, RandomSampler, TensorDataset

from model import TrajectoryPlanner


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ddp", action="store_true")
    parser.add_argument("--resume", type=str, default="")
    parser.add_argument("--save_dir", type=str, default="runs")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--lr", type=float, default=3e-4)
    return parser.parse_args()


def main():
    args = parse_args()
    if args.ddp:
        dist.init_process_group("nccl")
        local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(local_rank)
        device = torch.device("cuda", local_rank)
        is_main = dist.get_rank() == 0
    else:
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        is_main = True

    dataset = TensorDataset(torch.randn(4096, 64), torch.randn(4096, 16, 2))
    sampler = DistributedSampler(dataset) if args.ddp else RandomSampler(dataset)
    loader = DataLoader(dataset, batch_size=128, sampler=sampler)

    model = TrajectoryPlanner().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

    start_epoch = 0
    if args.resume:
        ckpt = torch.load(args.resume, map_location=device)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["schedule"])
        start_epoch = ckpt["epoch"]

    if args.ddp:
        model = DDP(model, device_ids=[device.index])

    os.makedirs(args.save_dir, exist_ok=True)
    for epoch in range(start_epoch, args.epochs):
        if args.ddp:
            sampler.set_epoch(epoch)
        model.train()
        for obs, target in loader:
            obs, target = obs.to(device), target.to(device)
            optimizer.zero_grad()
            loss = F.smooth_l1_loss(model(obs), target)
            loss.backward()
            optimizer.step()
        scheduler.step()

        if is_main:
            path = os.path.join(args.save_dir, "latest.pth")
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "schedule": scheduler.state_dict(), "epoch": epoch + 1}, path)  # expect: TCK209


if __name__ == "__main__":
    main()
