import logging

import torch
import wandb
from torch import nn

from ml.utils import optional


class Logger:
    """Thin wrapper over wandb plus the logging module, counting epochs and batches."""

    def __init__(self, config, project: str = "carQUEST-ML"):
        self.config = config
        self.project = project
        if self.config["wandb"]:
            wandb.login()
        self._epoch = 0
        self._step = 0

    def epoch(self, epoch: int):
        self._epoch = epoch
        self.log(f"----- Epoch {epoch + 1} -----")

    def log_batch(self, loss: torch.Tensor, step: int = None):
        if step is None:
            step = self._step
            self._step += 1
        if self.config["wandb"]:
            wandb.log({"epoch": self._epoch, "loss": loss}, step=step)

    def log(self, msg, level=logging.INFO):
        if isinstance(msg, dict) and self.config["wandb"]:
            wandb.log(msg)
        logging.log(level, msg)

    def watch(self, model: nn.Module, *args, **kwargs):
        if self.config["wandb"]:
            wandb.watch(model, *args, **kwargs)

    def __call__(self, config):
        return optional(self.config["wandb"], wandb.init, config=config.data, project=self.project)
