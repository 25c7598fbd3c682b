from contextlib import nullcontext

import torch


def setup(device: str, dtype: str):
    """Seed, enable TF32 and return the autocast context for the forward pass."""
    torch.manual_seed(1337)
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    if "cuda" not in device:
        return nullcontext()
    return torch.amp.autocast(device_type="cuda", dtype=getattr(torch, dtype))


def batches(data: torch.Tensor, block_size: int, batch_size: int, device: str):
    while True:
        ix = torch.randint(len(data) - block_size - 1, (batch_size,))
        x = torch.stack([data[i : i + block_size] for i in ix])
        y = torch.stack([data[i + 1 : i + 1 + block_size] for i in ix])
        yield x.to(device, non_blocking=True), y.to(device, non_blocking=True)
