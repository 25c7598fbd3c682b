import logging

import torch
import torch.nn as nn
from torch.amp import grad_scaler

logger = logging.getLogger(__name__)


class AverageMeter:
    def __init__(self, name: str) -> None:
        self.name = name
        self.reset()

    def reset(self) -> None:
        self.val = 0.0
        self.sum = 0.0
        self.count = 0
        self.avg = 0.0

    def update(self, val: float, n: int = 1) -> None:
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def step(
    step: int,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    loss: torch.Tensor,
    max_norm: float,
    scaler: grad_scaler.GradScaler | None = None,
    ema_model: nn.Module | None = None,
    scheduler: torch.optim.lr_scheduler.LRScheduler | None = None,
    grad_accum_steps: int = 1,
    skip_nan: bool = False,
    raise_nan: bool = False,
) -> torch.Tensor:
    """One training update: backward, then (every `grad_accum_steps` calls) clip and step.

    Returns the gradient norm.
    """
    has_nan = torch.isnan(loss).any()
    if has_nan and skip_nan:
        logger.info("Skip nan loss")
        return torch.tensor(0.0)
    if has_nan and raise_nan:
        raise ValueError("Loss has nan value")

    grad_norm = torch.tensor(0.0)
    if scaler is not None:
        scaler.scale(loss).backward()
        if step % grad_accum_steps == 0:
            scaler.unscale_(optimizer)
            grad_norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=max_norm)
            scaler.step(optimizer)
            scaler.update()
            if ema_model is not None:
                ema_model.update(model)
            if scheduler is not None:
                scheduler.step()
            optimizer.zero_grad()
    else:
        loss.backward()
        if step % grad_accum_steps == 0:
            grad_norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=max_norm)
            optimizer.step()
            if ema_model is not None:
                ema_model.update(model)
            if scheduler is not None:
                scheduler.step()
            optimizer.zero_grad()

    return grad_norm
