import torch
from torch.nn.parallel import DistributedDataParallel as DDP


def transform_if_model_is_DDP(text_encoder, unet, network=None):
    """Return the bare modules when accelerate wrapped them in DDP."""
    return (model.module if type(model) == DDP else model for model in [text_encoder, unet, network] if model is not None)


def get_scheduler_fix(args, optimizer, num_processes):
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / max(1, args.lr_warmup_steps)))
