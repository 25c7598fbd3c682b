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
        self.sum = 0.0
        self.count = 0
        self.avg = 0.0

    def update(self, value: float, n: int = 1) -> None:
        if value != value or value in (float("inf"), float("-inf")):
            logger.info("Skip nan or inf value")
            return
        self.sum += value * n
        self.count += n
        self.avg = self.sum / self.count


def step(
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    loss: torch.Tensor,
    max_norm: float,
    scaler: grad_scaler.GradScaler | None = None,
    ema_model=None,
    scheduler=None,
    skip_nan: bool = False,
) -> torch.Tensor:
    """One optimisation step: backward, clip, step, scheduler and EMA update."""
    if skip_nan and torch.isnan(loss).any():
        logger.info("Skip nan loss")
        return torch.tensor(0.0)

    if scaler is not None:
        scaled_loss = scaler.scale(loss)
        scaled_loss.backward()
        scaler.unscale_(optimizer)
        grad_norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=max_norm)
        scaler.step(optimizer)
        scaler.update()
    else:
        loss.backward()
        grad_norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=max_norm)
        optimizer.step()
    optimizer.zero_grad(set_to_none=True)

    if scheduler is not None:
        scheduler.step()
    if ema_model is not None:
        ema_model.update(model)
    return grad_norm
