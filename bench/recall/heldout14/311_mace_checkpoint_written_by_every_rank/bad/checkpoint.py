import dataclasses
import glob
import os

import torch


@dataclasses.dataclass
class CheckpointState:
    model: torch.nn.Module
    optimizer: torch.optim.Optimizer
    lr_scheduler: torch.optim.lr_scheduler.LRScheduler


class CheckpointHandler:
    def __init__(self, directory, tag, keep=False):
        self.directory = directory
        self.tag = tag
        self.keep = keep
        os.makedirs(directory, exist_ok=True)

    def _path(self, epochs):
        return os.path.join(self.directory, f"{self.tag}_epoch-{epochs}.pt")

    def save(self, state, epochs, keep_last=False):
        if not self.keep and not keep_last:
            for old in glob.glob(os.path.join(self.directory, f"{self.tag}_epoch-*.pt")):
                os.remove(old)
        checkpoint = {
            "model": state.model.state_dict(),
            "optimizer": state.optimizer.state_dict(),
            "lr_scheduler": state.lr_scheduler.state_dict(),
        }
        torch.save(obj=checkpoint, f=self._path(epochs))  # expect: TCK208
