import argparse
import math
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler

from model import SFTDataset, TinyCausalLM, token_loss


def Logger(content):
    if not ddp or dist.get_rank() == 0:
        print(content)


def get_lr(current_step, total_steps, lr):
    return lr / 10 + 0.5 * lr * (1 + math.cos(math.pi * current_step / total_steps))


def train_epoch(epoch):
    for step, (X, Y, loss_mask) in enumerate(train_loader):
        X, Y, loss_mask = X.to(args.device), Y.to(args.device), loss_mask.to(args.device)
        lr = get_lr(epoch * iter_per_epoch + step, args.epochs * iter_per_epoch, args.learning_rate)
        for param_group in optimizer.param_groups:
            param_group["lr"] = lr

        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = token_loss(model(X), Y, loss_mask) / args.accumulation_steps
        loss.backward()

        if (step + 1) % args.accumulation_steps == 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)

        if step % args.log_interval == 0:
            Logger(f"Epoch:[{epoch + 1}/{args.epochs}]({step}/{iter_per_epoch}) "
                   f"loss:{loss.item() * args.accumulation_steps:.3f} lr:{lr:.12f}")

        if (step + 1) % args.save_interval == 0 and (not ddp or dist.get_rank() == 0):
            raw = model.module if isinstance(model, DistributedDataParallel) else model
            torch.save({k: v.half().cpu() for k, v in raw.state_dict().items()}, f"{args.out_dir}/full_sft.pth")


def init_distributed_mode():
    global ddp_local_rank
    dist.init_process_group(backend="nccl")
    ddp_local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(ddp_local_rank)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Full SFT")
    parser.add_argument("--out_dir", type=str, default="../out")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch_size", type=int, default=16)
    parser.add_argument("--learning_rate", type=float, default=5e-7)
    parser.add_argument("--device", type=str, default="cuda:0")
    parser.add_argument("--num_workers", type=int, default=1)
    parser.add_argument("--accumulation_steps", type=int, default=1)
    parser.add_argument("--grad_clip", type=float, default=1.0)
    parser.add_argument("--log_interval", type=int, default=100)
    parser.add_argument("--save_interval", type=int, default=100)
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)

    ddp = int(os.environ.get("RANK", -1)) != -1  # is this a ddp run?
    ddp_local_rank = 0
    if ddp:
        init_distributed_mode()
        args.device = torch.device(f"cuda:{ddp_local_rank}")

    model = TinyCausalLM().to(args.device)
    train_ds = SFTDataset()
    train_sampler = DistributedSampler(train_ds) if ddp else None
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, pin_memory=True, drop_last=False,
                              shuffle=False, num_workers=args.num_workers, sampler=train_sampler)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
    if ddp:
        model = DistributedDataParallel(model, device_ids=[ddp_local_rank])

    iter_per_epoch = len(train_loader)
    for epoch in range(args.epochs):
        train_sampler and train_sampler.set_epoch(epoch)
        train_epoch(epoch)
