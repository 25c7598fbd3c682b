from typing import Dict

import torch


class Seq2VecEncoder(torch.nn.Module):
    """Turns a (batch, seq, dim) tensor into a (batch, dim') tensor."""

    _registry: Dict[str, type] = {}

    @classmethod
    def register(cls, name: str):
        def decorator(subclass):
            cls._registry[name] = subclass
            return subclass
        return decorator

    def get_input_dim(self) -> int:
        raise NotImplementedError

    def get_output_dim(self) -> int:
        raise NotImplementedError
