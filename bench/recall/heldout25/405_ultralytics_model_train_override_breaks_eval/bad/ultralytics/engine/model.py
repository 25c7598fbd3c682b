from pathlib import Path

import torch
from torch import nn


class Model(nn.Module):
    """Unified front end: wraps a detection network and offers predict/val/train/export."""

    def __init__(self, model="yolo11n.pt", task=None):
        super().__init__()
        self.trainer = None
        self.overrides = {"task": task}
        self.model = self._load_network(model)

    @staticmethod
    def _load_network(weights):
        if Path(str(weights)).suffix == ".pt" and Path(str(weights)).exists():
            return torch.load(weights, map_location="cpu", weights_only=False)["model"]
        return nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.SiLU(), nn.Conv2d(16, 8, 1))

    @property
    def task_map(self):
        raise NotImplementedError

    def _smart_load(self, key):
        return self.task_map[self.overrides.get("task") or "detect"][key]

    def __call__(self, source=None, **kwargs):
        return self.predict(source, **kwargs)

    def predict(self, source=None, **kwargs):
        with torch.inference_mode():
            return self.model(source)

    def train(self, trainer=None, **kwargs):  # expect: TCK610
        """Train the wrapped network on a dataset; ``trainer`` is an optional custom trainer class."""
        args = {**self.overrides, **kwargs, "mode": "train"}
        self.trainer = (trainer or self._smart_load("trainer"))(args=args, model=self.model)
        self.trainer.train()
        self.model = self.trainer.best["model"]
        return self.trainer
