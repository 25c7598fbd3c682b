import contextlib

import torch
from torch.distributed.fsdp import fully_shard


def maybe_no_sync(model, sync_gradients):
    if sync_gradients or not hasattr(model, "no_sync"):
        return contextlib.nullcontext()
    return model.no_sync()


def train(model, loader, optimizer, accumulation_steps):
    for block in model.blocks:
        fully_shard(block)
    fully_shard(model)
    for step, (x, y) in enumerate(loader):
        sync_gradients = (step + 1) % accumulation_steps == 0
        with maybe_no_sync(model, sync_gradients):  # expect: TCK214
            loss = torch.nn.functional.cross_entropy(model(x), y) / accumulation_steps
            loss.backward()
        if sync_gradients:
            optimizer.step()
            optimizer.zero_grad()
