import argparse

import torch
import torch.distributed as dist
from torch import nn, optim
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from trainer_utils import init_distributed_mode, init_model, is_main_process


def train_epoch(epoch, loader):
    loss_fct = nn.CrossEntropyLoss()
    for step, (x, y) in enumerate(loader, start=1):
        x, y = x.to(args.device), y.to(args.device)
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
            logits = model(x)
            loss = loss_fct(logits.float().view(-1, logits.size(-1)), y.view(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

        if step % args.save_interval == 0 and is_main_process():
            ckp = f"{args.save_dir}/{args.save_weight}_{args.hidden_size}.pth"
            raw_model = model.module if isinstance(model, DistributedDataParallel) else model
            raw_model = getattr(raw_model, "_orig_mod", raw_model)
            state_dict = raw_model.state_dict()
            torch.save({k: v.half().cpu() for k, v in state_dict.items()}, ckp)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--save_dir", default="../out")
    parser.add_argument("--save_weight", default="pretrain")
    parser.add_argument("--from_weight", default="none")
    parser.add_argument("--hidden_size", type=int, default=512)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--save_interval", type=int, default=100)
    parser.add_argument("--use_compile", type=int, default=0, choices=[0, 1])
    parser.add_argument("--device", default="cuda:0")
    args = parser.parse_args()

    local_rank = init_distributed_mode()
    if dist.is_initialized():
        args.device = f"cuda:{local_rank}"

    model = init_model(args.hidden_size, args.from_weight, save_dir=args.save_dir, device=args.device)
    if args.use_compile == 1:
        model = torch.compile(model)
    tokens = torch.randint(0, 6400, (1024, 65))
    train_ds = TensorDataset(tokens[:, :-1], tokens[:, 1:])
    train_sampler = DistributedSampler(train_ds) if dist.is_initialized() else None
    optimizer = optim.AdamW(model.parameters(), lr=5e-4)
    if dist.is_initialized():
        model = DistributedDataParallel(model, device_ids=[local_rank])

    loader = DataLoader(train_ds, batch_size=32, shuffle=(train_sampler is None), sampler=train_sampler)
    for epoch in range(args.epochs):
        if train_sampler is not None:
            train_sampler.set_epoch(epoch)
        train_epoch(epoch, loader)
    if dist.is_initialized():
        dist.destroy_process_group()
