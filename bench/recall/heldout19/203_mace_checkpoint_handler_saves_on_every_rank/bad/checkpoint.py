import dataclasses
import os
from typing import Dict, Optional

import torch


@dataclasses.dataclass
class CheckpointState:
    model: torch.nn.Module
    optimizer: torch.optim.Optimizer
    lr_scheduler: torch.optim.lr_scheduler.ReduceLROnPlateau


class CheckpointIO:
    def __init__(self, directory: str, tag: str, keep: bool = False) -> None:
        self.directory = directory
        self.tag = tag
        self.keep = keep
        self.old_path: Optional[str] = None

    def _filename(self, epochs: int) -> str:
        return f"{self.tag}_epoch-{epochs}.pt"

    def save(self, checkpoint: Dict, epochs: int, keep_last: bool = False) -> None:
        if not self.keep and self.old_path and not keep_last:
            os.remove(self.old_path)
        path = os.path.join(self.directory, self._filename(epochs))
        os.makedirs(self.directory, exist_ok=True)
        torch.save(checkpoint, path)  # expect: TCK208
        self.old_path = path

    def load(self, path: str, device: str = "cpu") -> Dict:
        return torch.load(path, map_location=device, weights_only=True)


class CheckpointHandler:
    def __init__(self, directory: str, tag: str, keep: bool = False) -> None:
        self.io = CheckpointIO(directory, tag, keep)

    def save(self, state: CheckpointState, epochs: int, keep_last: bool = False) -> None:
        checkpoint = {
            "model": state.model.state_dict(),
            "optimizer": state.optimizer.state_dict(),
            "lr_scheduler": state.lr_scheduler.state_dict(),
        }
        self.io.save(checkpoint, epochs, keep_last)

    def load(self, state: CheckpointState, path: str, device: str = "cpu") -> None:
        checkpoint = self.io.load(path, device)
        state.model.load_state_dict(checkpoint["model"])
        state.optimizer.load_state_dict(checkpoint["optimizer"])
        state.lr_scheduler.load_state_dict(checkpoint["lr_scheduler"])
