"""Train and eval loops for a DETR-style detector."""
import math
import sys
from typing import Iterable

import torch
import torch.nn as nn
from torch.cuda.amp import autocast, GradScaler  # expect: TCK301


def train_one_epoch(model: nn.Module, criterion: nn.Module, data_loader: Iterable,
                    optimizer: torch.optim.Optimizer, device: torch.device, epoch: int,
                    batch_size: int, args, max_norm: float = 0.1):
    model.train()
    criterion.train()
    scaler = GradScaler(enabled=args.amp)  # expect: TCK301
    optimizer.zero_grad()
    assert batch_size % args.grad_accum_steps == 0
    sub_batch_size = batch_size // args.grad_accum_steps
    running = 0.0
    for step, (samples, targets) in enumerate(data_loader):
        for i in range(args.grad_accum_steps):
            start, end = i * sub_batch_size, (i + 1) * sub_batch_size
            sub_samples = samples[start:end].to(device)
            sub_targets = [{k: v.to(device) for k, v in t.items()} for t in targets[start:end]]
            with autocast(enabled=args.amp, dtype=torch.bfloat16):  # expect: TCK301
                outputs = model(sub_samples)
                loss_dict = criterion(outputs, sub_targets)
                weight_dict = criterion.weight_dict
                losses = sum(loss_dict[k] * weight_dict[k] for k in loss_dict if k in weight_dict)
            scaler.scale(losses / args.grad_accum_steps).backward()
        loss_value = losses.item()
        if not math.isfinite(loss_value):
            print(f"Loss is {loss_value}, stopping training")
            sys.exit(1)
        if max_norm > 0:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
        running += loss_value
        if step % 50 == 0:
            print(f"epoch {epoch} step {step} loss {loss_value:.4f}")
    return running / max(1, step + 1)


@torch.no_grad()
def evaluate(model: nn.Module, criterion: nn.Module, data_loader: Iterable,
             device: torch.device, args):
    model.eval()
    criterion.eval()
    total = 0.0
    for samples, targets in data_loader:
        samples = samples.to(device)
        targets = [{k: v.to(device) for k, v in t.items()} for t in targets]
        with autocast(enabled=args.amp, dtype=torch.bfloat16):  # expect: TCK301
            outputs = model(samples)
        loss_dict = criterion(outputs, targets)
        total += sum(loss_dict[k] * criterion.weight_dict[k]
                     for k in loss_dict if k in criterion.weight_dict).item()
    return total / len(data_loader)
