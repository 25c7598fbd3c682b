import torch
from torch.distributed.fsdp import fully_shard


def train(model, loader, optimizer, accumulation_steps):
    for block in model.blocks:
        fully_shard(block)
    fully_shard(model)
    for step, (x, y) in enumerate(loader):
        sync_gradients = (step + 1) % accumulation_steps == 0
        model.set_requires_gradient_sync(sync_gradients)
        loss = torch.nn.functional.cross_entropy(model(x), y) / accumulation_steps
        loss.backward()
        if sync_gradients:
            optimizer.step()
            optimizer.zero_grad()
