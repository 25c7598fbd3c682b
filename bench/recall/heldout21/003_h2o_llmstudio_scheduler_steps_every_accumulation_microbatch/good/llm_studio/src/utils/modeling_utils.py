import torch
from transformers import get_constant_schedule_with_warmup, get_cosine_schedule_with_warmup, get_linear_schedule_with_warmup

SCHEDULERS = {
    "Cosine": get_cosine_schedule_with_warmup,
    "Linear": get_linear_schedule_with_warmup,
}


def get_optimizer(model, cfg):
    return torch.optim.AdamW(
        [p for p in model.parameters() if p.requires_grad],
        lr=cfg.training.learning_rate,
        weight_decay=cfg.training.weight_decay,
    )


def get_scheduler(cfg, optimizer, epoch_steps):
    """Build the per-step learning-rate schedule over the whole run."""
    total_steps = epoch_steps * cfg.training.epochs
    warmup_steps = int(cfg.training.warmup_epochs * epoch_steps)
    if cfg.training.schedule == "Constant":
        return get_constant_schedule_with_warmup(optimizer, num_warmup_steps=warmup_steps)
    return SCHEDULERS[cfg.training.schedule](
        optimizer, num_warmup_steps=warmup_steps, num_training_steps=total_steps
    )
