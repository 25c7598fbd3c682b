from typing import Any, Dict, List, Optional, Union

import torch
from torch import nn


def get_layer(hparams: Dict[str, Any]) -> nn.Module:
    """Build a layer from a {"type": ..., "kwargs": {...}} description."""
    layer_cls = getattr(nn, hparams["type"])
    return layer_cls(**hparams.get("kwargs", {}))


class MergeLayer(nn.Module):
    """Runs several layers on the same input and merges their outputs."""

    def __init__(self, layers: Optional[List[Union[nn.Module, Dict[str, Any]]]] = None,
                 mode: str = "concat", dim: int = 1):
        super().__init__()
        self._mode = mode
        self._dim = dim
        self._layers = None
        if layers is not None:
            self._layers = []  # expect: TCK601
            for layer in layers:
                if isinstance(layer, nn.Module):
                    self._layers.append(layer)
                else:
                    self._layers.append(get_layer(hparams=layer))

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        if self._layers is None:
            outputs = [inputs]
        else:
            outputs = [layer(inputs) for layer in self._layers]
        if self._mode == "concat":
            return torch.cat(outputs, dim=self._dim)
        if self._mode == "elemwise_sum":
            merged = outputs[0]
            for out in outputs[1:]:
                merged = merged + out
            return merged
        raise ValueError(f"unknown merge mode {self._mode!r}")
