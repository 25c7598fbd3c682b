"""Train and eval functions used in main.py."""

import math
import sys
from typing import Iterable

import torch
import torch.distributed as dist


def reduce_dict(losses):
    if not (dist.is_available() and dist.is_initialized()):
        return {k: v.detach() for k, v in losses.items()}
    names = sorted(losses)
    values = torch.stack([losses[k].detach() for k in names])
    dist.all_reduce(values)
    values /= dist.get_world_size()
    return dict(zip(names, values))


def train_one_epoch(model: torch.nn.Module, criterion: torch.nn.Module, data_loader: Iterable,
                    optimizer: torch.optim.Optimizer, device: torch.device, epoch: int,
                    max_norm: float = 0, lr_scheduler=None, args=None):
    scaler = torch.amp.GradScaler("cuda", enabled=args.amp)
    model.train()
    criterion.train()
    running = {}
    for it, (samples, targets) in enumerate(data_loader):
        samples = samples.to(device)
        targets = [{k: v.to(device) for k, v in t.items()} for t in targets]

        with torch.autocast("cuda", enabled=args.amp):
            outputs = model(samples, targets) if args.use_dn else model(samples)
            loss_dict = criterion(outputs, targets)
            weight_dict = criterion.weight_dict
            losses = sum(loss_dict[k] * weight_dict[k] for k in loss_dict if k in weight_dict)

        reduced = reduce_dict(loss_dict)
        loss_value = sum(reduced[k] * weight_dict[k] for k in reduced if k in weight_dict).item()
        if not math.isfinite(loss_value):
            print(f"Loss is {loss_value}, stopping training")
            sys.exit(1)

        if args.amp:
            optimizer.zero_grad()
            scaler.scale(losses).backward()
            if max_norm > 0:
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
            scaler.step(optimizer)
            scaler.update()
        else:
            # original backward function
            losses.backward()
            if max_norm > 0:
                torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
            optimizer.step()  # expect: TCK102

        if args.onecyclelr:
            lr_scheduler.step()
        for k, v in reduced.items():
            running[k] = running.get(k, 0.0) + v.item()
        if it % 10 == 0:
            print(f"Epoch [{epoch}] it {it} loss {loss_value:.4f} lr {optimizer.param_groups[0]['lr']:.6f}")

    return {k: v / max(1, it + 1) for k, v in running.items()}
