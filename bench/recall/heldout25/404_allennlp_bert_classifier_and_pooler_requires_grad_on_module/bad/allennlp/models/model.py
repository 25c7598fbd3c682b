from typing import Dict

import torch


class Model(torch.nn.Module):
    """Base class of trainable models: a module that knows its vocabulary and reports metrics."""

    _registry: Dict[str, type] = {}

    def __init__(self, vocab) -> None:
        super().__init__()
        self.vocab = vocab

    @classmethod
    def register(cls, name: str):
        def decorator(subclass):
            cls._registry[name] = subclass
            return subclass
        return decorator

    def get_metrics(self, reset: bool = False) -> Dict[str, float]:
        return {}
