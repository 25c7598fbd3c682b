"""Small training utilities shared by the finetuning script."""
import random
import re
from typing import List, Optional, Tuple

import numpy as np
import torch


def init_device(device_id: int = 0) -> torch.device:
    if torch.cuda.is_available():
        torch.cuda.set_device(device_id)
        return torch.device(f"cuda:{device_id}")
    return torch.device("cpu")


def seed_everything(seed: int, rank: int = 0) -> None:
    random.seed(seed + rank)
    np.random.seed(seed + rank)
    torch.manual_seed(seed + rank)


class ScalarMetricTracker:
    """Running averages of scalar metrics."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.sums = {}
        self.counts = {}

    def update(self, metrics):
        for key, value in metrics.items():
            value = float(value.detach().item()) if isinstance(value, torch.Tensor) else float(value)
            self.sums[key] = self.sums.get(key, 0.0) + value
            self.counts[key] = self.counts.get(key, 0) + 1

    def get_metrics(self):
        return {key: self.sums[key] / self.counts[key] for key in self.sums}


def gradient_clipping(model: torch.nn.Module, clip_value: float) -> List[torch.utils.hooks.RemovableHandle]:
    """Clamp every gradient as it is produced, through tensor hooks."""
    handles = []
    for parameter in model.parameters():
        if parameter.requires_grad:
            handles.append(parameter.register_hook(lambda grad: torch.clamp(grad, -clip_value, clip_value)))
    return handles


def get_optim(lr: float, total_steps: int, model: torch.nn.Module
              ) -> Tuple[torch.optim.Optimizer, Optional[torch.optim.lr_scheduler.LRScheduler]]:
    params = []
    for name, param in model.named_parameters():
        if re.search(r"(.*bias|.*layer_norm.*|.*batch_norm.*)", name):
            params.append({"params": param, "weight_decay": 0.0})
        else:
            params.append({"params": param})
    optimizer = torch.optim.Adam(params, lr=lr)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=lr, total_steps=total_steps, pct_start=0.05)
    return optimizer, scheduler
