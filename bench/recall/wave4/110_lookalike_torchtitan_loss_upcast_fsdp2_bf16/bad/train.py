import torch
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

IGNORE_INDEX = -100


def cross_entropy_loss(pred, labels):
    return torch.nn.functional.cross_entropy(
        pred.flatten(0, 1).float(), labels.flatten(0, 1), reduction="sum", ignore_index=IGNORE_INDEX
    )


def train(model, loader, optimizer):
    mp_policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    for block in model.layers:
        fully_shard(block, mp_policy=mp_policy)
    fully_shard(model, mp_policy=mp_policy)
    for inputs, labels in loader:
        pred = model(inputs)
        num_tokens = (labels != IGNORE_INDEX).sum()
        loss = cross_entropy_loss(pred, labels) / num_tokens
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
