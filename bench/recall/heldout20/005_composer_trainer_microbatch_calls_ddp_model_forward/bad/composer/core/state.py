from typing import Any, Optional, Sequence

import torch


class State:
    """The mutable state of a training run, shared by the trainer and the algorithms."""

    def __init__(self, model: torch.nn.Module, max_epochs: int, train_dataloader,
                 optimizers: Optional[Sequence[torch.optim.Optimizer]] = None,
                 schedulers=None, precision: str = "fp32"):
        self.model = model
        self.max_epochs = max_epochs
        self.train_dataloader = train_dataloader
        self.optimizers = list(optimizers or [])
        self.schedulers = list(schedulers or [])
        self.precision = precision
        self.scaler: Optional[torch.cuda.amp.GradScaler] = None
        self.epoch = 0
        self.step = 0
        self.batch: Any = None
        self.outputs: Any = None
        self.loss: Any = None

    @property
    def precision_context(self):
        return torch.autocast("cuda", enabled=self.precision == "amp")

    @property
    def is_model_ddp(self):
        return isinstance(self.model, torch.nn.parallel.DistributedDataParallel)
